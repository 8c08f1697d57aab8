/**
 * A model's chat template (tokenizer_config.json `chat_template`, Jinja) rendered with the field's own
 * library, @huggingface/jinja, the one transformers.js uses: the prompt a chat model was trained on, with its
 * role markers and generation prompt, in place of the messages' bare text. The template is untrusted input
 * from a downloaded repository: it runs in the library's sandboxed interpreter (no eval), and a template that
 * does not parse or render is refused with its reason.
 */
import { Template } from '@huggingface/jinja';
import { ModelLoadError } from './manifest';

export interface ChatMessage {
  role: string;
  content: string;
}

export class ChatTemplateError extends ModelLoadError {
  override name = 'ChatTemplateError';
}

/** tokenizer_config.json names a special token as a string or an AddedToken object ({content}). */
function tokenText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { content?: unknown }).content === 'string')
    return (value as { content: string }).content;
  return '';
}

export interface ChatTemplate {
  render(messages: readonly ChatMessage[], options?: { addGenerationPrompt?: boolean }): string;
}

/**
 * The chat template of a tokenizer_config.json, or null where it has none (GPT-2, Llama 2's base model).
 * A list of named templates (`[{name, template}]`) gives its `default`.
 */
export function chatTemplateOf(config: unknown, source: string): ChatTemplate | null {
  if (typeof config !== 'object' || config === null) return null;
  const record = config as Record<string, unknown>;
  let text = record.chat_template;
  if (Array.isArray(text))
    text = (text as { name?: unknown; template?: unknown }[]).find((entry) => entry.name === 'default')?.template;
  if (text === undefined || text === null) return null;
  if (typeof text !== 'string') throw new ChatTemplateError(`${source}: chat_template must be a string`);
  let template: Template;
  try {
    template = new Template(text);
  } catch (error) {
    throw new ChatTemplateError(`${source}: the chat template does not parse: ${(error as Error).message}`);
  }
  const specials = { bos_token: tokenText(record.bos_token), eos_token: tokenText(record.eos_token) };
  return {
    render(messages, options = {}) {
      try {
        return template.render({
          messages: messages.map(({ role, content }) => ({ role, content })),
          add_generation_prompt: options.addGenerationPrompt ?? true,
          ...specials,
        });
      } catch (error) {
        throw new ChatTemplateError(`${source}: the chat template did not render: ${(error as Error).message}`);
      }
    },
  };
}

/**
 * The prompt for a list of chat messages: the model's template where it has one, else (the bundled pair,
 * GPT-2) the messages' contents one per line, as before templates were read.
 */
export function chatPrompt(template: ChatTemplate | null, messages: readonly ChatMessage[]): string {
  return template ? template.render(messages) : messages.map((message) => message.content).join('\n');
}
