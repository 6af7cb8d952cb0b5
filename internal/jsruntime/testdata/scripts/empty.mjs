import { definePromptTemplate } from '@agentv/eval';

definePromptTemplate(() => '');
