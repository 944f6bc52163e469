import type { HandlerTable } from '../context.js';
import { chatHandler } from './chat.js';
import { modelsHandler } from './models.js';
import { responsesHandler } from './responses.js';
import { contentHandler, pollHandler, submitHandler } from './video.js';

export const HANDLERS: HandlerTable = {
  models: modelsHandler,
  chat: chatHandler,
  responses: responsesHandler,
  submit: submitHandler,
  poll: pollHandler,
  content: contentHandler,
};
