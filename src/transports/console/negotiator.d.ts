/** The part of negotiator 1.x this folder uses (its DefinitelyTyped types describe 0.6). */
declare module 'negotiator' {
  class Negotiator {
    constructor(request: { headers: Record<string, string | string[] | undefined> });
    /** The best of `available` for the request's Accept-Encoding; ties go to `preferred`'s order. */
    encoding(available: readonly string[], options?: { preferred?: readonly string[] }): string;
  }
  export = Negotiator;
}
