/** Reads all of stdin synchronously as UTF-8 (works in Node and bun). */
export declare function readStdinSync(): string;
