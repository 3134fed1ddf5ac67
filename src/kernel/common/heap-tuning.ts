import { setFlagsFromString } from 'node:v8';

/**
 * V8's allocation-site pretenuring off, for the server process: imported first by main.ts, before
 * any module loads. While the modules load, most objects live on, and V8 may decide that a site
 * which later makes per-request objects (an object literal, an array) is to allocate them in the
 * old generation at once. It is decided by when the first scavenges fall, so about one start in
 * four: that process then promotes every call's garbage, runs a mark-compact every few hundred ms
 * and serves a quarter less with p99 doubled, for its whole life (bench/history/2026-11.md). The
 * service's long-lived objects are few and made at start-up, so the optimisation has nothing to
 * win here. The flag is read at each garbage collection, so setting it at run time takes effect.
 */
setFlagsFromString('--no-allocation-site-pretenuring');
