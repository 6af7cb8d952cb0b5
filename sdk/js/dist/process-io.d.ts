/** The process surface the runners use; tests pass their own. */
export interface ProcessIO {
    readStdin(): string;
    writeStdout(text: string): void;
    /** Reports a failure: the message on stderr and exit code 1. */
    fail(message: string): void;
}
export declare const processIO: ProcessIO;
/** The text to show for a thrown value. */
export declare function errorMessage(err: unknown): string;
