/**
 * The signed-in key, kept in sessionStorage only: it lives as long as the tab, never in a URL, a
 * cookie or localStorage, and is never written to the console's log. Signing out forgets it.
 */
const STORAGE_KEY = 'tis-console-key';

export const session = {
  key(): string | null {
    return sessionStorage.getItem(STORAGE_KEY);
  },
  keep(key: string): void {
    sessionStorage.setItem(STORAGE_KEY, key);
  },
  forget(): void {
    sessionStorage.removeItem(STORAGE_KEY);
  },
};
