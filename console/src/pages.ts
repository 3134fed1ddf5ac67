import type { ComponentType } from 'react';
import type { IconName } from './components/icons';

/**
 * A page of the console: a file `pages/<name>.page.tsx` exporting `page`. The router and the
 * navigation are made from every such file, so a new page (agent runs, webhooks, the ledger) is
 * that one file and nothing else.
 */
export interface PageDefinition {
  /** Below /console, in wouter's syntax: `/keys/:id`. */
  path: string;
  title: string;
  /** In the navigation, in `order`; pages without are reached through links. */
  nav?: { label: string; order: number; icon: IconName };
  component: ComponentType;
}

const modules = import.meta.glob<PageDefinition>('./pages/*.page.tsx', {
  eager: true,
  import: 'page',
});

export const PAGES: PageDefinition[] = Object.values(modules);

export const NAVIGATION = PAGES.filter((page) => page.nav).sort(
  (a, b) => (a.nav?.order ?? 0) - (b.nav?.order ?? 0),
);
