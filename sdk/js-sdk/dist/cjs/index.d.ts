export * from '@agentv/eval/sdk';
