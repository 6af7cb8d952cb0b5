import { type ProcessIO } from './process-io.js';
/** Runs run on the process's stdin and stdout, or registers it with agentv's worker. */
export declare function serve(kind: string, run: (io: ProcessIO) => Promise<void>): Promise<void>;
