/** An invalid variable or CONFIG_FILE: start-up stops with its one-line message. */
export class SettingsError extends Error {}
