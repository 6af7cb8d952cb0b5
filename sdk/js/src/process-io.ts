import { readStdinSync } from './stdin.js';

/** The process surface the runners use; tests pass their own. */
export interface ProcessIO {
  readStdin(): string;
  writeStdout(text: string): void;
  /** Reports a failure: the message on stderr and exit code 1. */
  fail(message: string): void;
}

export const processIO: ProcessIO = {
  readStdin: readStdinSync,
  writeStdout(text) {
    process.stdout.write(text);
  },
  fail(message) {
    process.stderr.write(message.endsWith('\n') ? message : message + '\n');
    // exit now: a handler may have left timers or sockets open, and the run must not wait for
    // them until agentv's timeout kills it.
    process.exit(1);
  },
};

/** The text to show for a thrown value. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name || 'error';
  if (typeof err === 'string') return err || 'error';
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}
