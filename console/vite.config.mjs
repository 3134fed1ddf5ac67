// The console's build (npm run build runs it through scripts/build-console.js): served by the service
// under /console, every script a file of its own (the service's policy allows no inline script).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/console/',
  publicDir: 'public',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/console-ui', import.meta.url)),
    emptyOutDir: true,
    // No inline module-preload polyfill: every script is a file the policy allows.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 600,
    reportCompressedSize: false,
    rolldownOptions: {
      onwarn(warning, warn) {
        // React libraries mark their modules "use client" for server components: nothing to
        // keep in a browser bundle.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
});
