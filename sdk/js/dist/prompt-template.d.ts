import { type ProcessIO } from './process-io.js';
import type { PromptTemplateHandler } from './types.js';
/**
 * Runs a prompt template: reads the payload from stdin, calls handler (awaiting it when it is
 * async) and prints the returned prompt. On error the message goes to stderr and the process exits
 * with code 1, which agentv reports with that message.
 *
 * ```ts
 * import { definePromptTemplate } from '@agentv/eval';
 * export default definePromptTemplate((ctx) => `Question: ${ctx.question}\nAnswer: ${ctx.candidateAnswer}`);
 * ```
 */
export declare function definePromptTemplate(handler: PromptTemplateHandler): Promise<void>;
export declare function runPromptTemplate(handler: PromptTemplateHandler, io: ProcessIO): Promise<void>;
