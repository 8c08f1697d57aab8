import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { copySpan, copyText, copyTokens, valueCursor } from '../../src/core/copyDraft';
import { SCHEMA_PRESETS } from '../../src/contract/presets';
import { TextTokenizer } from '../../src/models/tokenizer';
import { decodeJson, tokenizeJson } from '../support/jsonVocab';

const prompt = (id: string) => SCHEMA_PRESETS.find((preset) => preset.id === id)?.prompt as string;

describe('where the JSON being written stands', () => {
  it('inside a string value, a number, before a value; never inside a key or between members', () => {
    expect(valueCursor('{"name": "Mar')).toEqual({ kind: 'string', text: 'Mar', start: 10, key: 'name' });
    expect(valueCursor('{"a": {"b": 3')).toEqual({ kind: 'number', text: '3', start: 12, key: 'b' });
    expect(valueCursor('{"total":')).toEqual({ kind: 'before-value', text: '', start: 9, key: 'total' });
    expect(valueCursor('{"items": [{"sku": "X-1", "quantity": 2}, "')).toMatchObject({ kind: 'string', key: null });
    expect(valueCursor('{"na')).toBeNull();
    expect(valueCursor('{"name": "Maria",')).toBeNull();
    expect(valueCursor('{"name": "Maria"')).toBeNull();
    // An escaped quote does not close the string.
    expect(valueCursor('{"q": "say \\"hi')).toMatchObject({ kind: 'string', text: 'say \\"hi' });
  });
});

describe('the text the copy drafter proposes', () => {
  it('continues the value from the first place in the prompt where its text so far starts a token, to the value’s end', () => {
    expect(copyText(prompt('person'), '{"name": "Maria')).toEqual({ text: ' Lopez', valueChars: 5 });
    // "M" starts "Maria" and "May": the first in the prompt, so every draft picks the same.
    expect(copyText(prompt('person'), '{"name": "M')?.text).toBe('aria Lopez');
    expect(copyText(prompt('order'), '{"order_id": "A-17", "items": [{"sku": "X')?.text).toBe('-100');
    expect(copyText(prompt('order'), '{"order_id": "A-17", "items": [], "total": 3')?.text).toBe('1.5');
    expect(copyText(prompt('event'), '{"title": "The robotics meetup", "date": "2026-03')?.text).toBe('-14');
    // Inside a word is another word; nothing matches "Lopezz".
    expect(copyText(prompt('person'), '{"name": "aria')).toBeNull();
    expect(copyText(prompt('person'), '{"name": "Lopezz')).toBeNull();
    // A number copies only a number: "4.5." ends at the sentence's full stop.
    expect(copyText(prompt('event'), '{"rating": 4')?.text).toBe('.5');
  });

  it('copies a number only where it starts a token, not from inside a code, a date or a decimal', () => {
    // "1" first starts "14" in 2026-03-14 after a dash; the number is the 120 of "drew 120 people".
    expect(copyText(prompt('event'), '{"attendees": 1')?.text).toBe('20');
    // "2" only occurs inside "H-20", "1" inside "A-17", "X-100" and "31.50": nothing to copy.
    const items = '{"order_id": "A-17", "items": [{"sku": "X-100", "quantity": ';
    expect(copyText(prompt('order'), `${items}2`)).toBeNull();
    expect(copyText(prompt('order'), `${items}1`)).toBeNull();
    expect(copyText('Paid 31.57 and 50 more', '{"a": 5')?.text).toBe('0');
    // A minus sign after a space is the number's own.
    expect(copyText('It fell to -12 today', '{"t": -1')?.text).toBe('2');
  });

  it('leaves a fraction’s trailing zeros to the target', () => {
    expect(copyText('rated 4.50 today', '{"r": 4')?.text).toBe('.5');
    expect(copyText('rated 4.05 today', '{"r": 4')?.text).toBe('.05');
    expect(copyText('rated 4.00 today', '{"r": 4')).toBeNull();
    expect(copyText('it cost 1200 in all', '{"r": 1')?.text).toBe('200');
  });

  it('stops a string before a lower-case function word, and goes on once the target writes it', () => {
    expect(copyText(prompt('event'), '{"title": "robotics')?.text).toBe(' meetup');
    // At the function word itself the choice is the target's: nothing is proposed.
    expect(copyText(prompt('event'), '{"title": "robotics meetup')).toBeNull();
    expect(copyText(prompt('event'), '{"title": "robotics meetup on')?.text).toBe(' 2026-03-14 drew 120 people');
    // Whole words only ("origami" is not "or"), lower case only ("Of" in a name is the name's).
    expect(copyText('Item: blue origami kit, 2', '{"item": "blue')?.text).toBe(' origami kit');
    expect(copyText('Guest: Sam Of Wales, 3', '{"name": "Sam')?.text).toBe(' Of Wales');
    expect(copyText('Guest: Sam of Wales, 3', '{"name": "Sam')).toBeNull();
    // The same at a value's first character.
    expect(copyText('Venue: hall of fame.', '{"venue": "')?.text).toBe('hall');
  });

  it('at a value’s first character copies what the key’s name points to, only where the name occurs once', () => {
    expect(copyText(prompt('order'), '{"order_id": "')?.text).toBe('A-17');
    expect(copyText('Age: 34, age group B', '{"age":')).toBeNull();
    expect(copyText('Name: Ada, age 34.', '{"age":')?.text).toBe(' 34');
    expect(copyText('Name: Ada, age 34.', '{"age": ')?.text).toBe('34');
    // Before a value opens, only a number: the schema says whether a quote comes first.
    expect(copyText('Name: Ada, age 34.', '{"name":')).toBeNull();
    expect(copyText('Name: Ada, age 34.', '{"name": "')?.text).toBe('Ada');
  });

  it('never proposes text a JSON string would have to escape', () => {
    expect(copyText('Folder tmp\\new here', '{"q": "tm')).toBeNull();
    expect(copyText('Folder tmp\tnew here', '{"q": "tm')).toBeNull();
    expect(copyText('Folder tmp new here', '{"q": "tm')?.text).toBe('p new here');
  });
});

describe('re-tokenized where it stands', () => {
  const bundled = TextTokenizer.fromJson(
    JSON.parse(readFileSync('public/models/speclab-tokenizer/tokenizer.json', 'utf8')),
    'bundled',
    '<|endoftext|>',
  );
  const tokenize = (text: string) => bundled.encode(text);
  const detokenize = (tokens: readonly number[]) => bundled.decode([...tokens]);
  const text = (tokens: readonly number[]) => tokens.map((token) => bundled.decode([token]));

  it('the bundled tokenizer: the value’s own tokens, not the prompt’s (“ Maria” there, “Maria” after a quote)', () => {
    expect(text(tokenize(prompt('person')))).toContain(' Maria');
    const json = '{"name": "Maria';
    const output = tokenize(json);
    expect(text(output).at(-1)).toBe('Maria');
    expect(text(copySpan(prompt('person'), output, json, tokenize, detokenize))).toEqual([' Lopez']);
    const order = '{"order_id": "';
    expect(text(copySpan(prompt('order'), tokenize(order), order, tokenize, detokenize)).join('')).toBe('A-17');
  });

  it('takes the tokens that follow the output’s own, or tokenizes the copy alone where the output split otherwise', () => {
    // "tr" written as t·r: together "true" is one token, which the output did not write, so "ue" alone.
    expect(decodeJson(copyTokens(tokenizeJson('"tr'), 2, 'ue', tokenizeJson, decodeJson))).toBe('ue');
    expect(copyTokens(tokenizeJson('"tr'), 2, 'ue', tokenizeJson, decodeJson)).toEqual(tokenizeJson('ue'));
    // "ab" + "c": the split agrees, and only the new tokens are proposed.
    expect(copyTokens(tokenizeJson('"ab'), 2, 'c', tokenizeJson, decodeJson)).toEqual(tokenizeJson('c'));
  });
});
