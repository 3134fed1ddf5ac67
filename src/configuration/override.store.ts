export type OverrideListener = () => void;

/** Configuration overrides (config_set), by dot-separated key, values as JSON-compatible data. */
export abstract class OverrideStore {
  private readonly listeners = new Set<OverrideListener>();

  abstract getOverrides(): Promise<Record<string, unknown>>;
  abstract setOverride(key: string, value: unknown): Promise<void>;
  abstract deleteOverride(key: string): Promise<void>;

  /** Called after the overrides change, on this instance or (shared backends) on any other. */
  onOverridesChanged(listener: OverrideListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  protected notifyOverridesChanged(): void {
    for (const listener of this.listeners) listener();
  }
}
