/**
 * The training corpus for the bundled draft/target pair: seeded text → JSON extraction records for every
 * schema preset of the app (src/grammar/presets.ts). Each record is a prompt in the presets' own form and
 * the JSON in the grammar's one-line layout (": " and ", "), so that the models learn the layout the mask
 * enforces. Deterministic in the seed.
 */
import { createRng, type Rng } from '../../src/core/rng';
import type { SchemaPreset } from '../../src/grammar/presets';

export interface CorpusRecord {
  preset: SchemaPreset['id'];
  /** The prompt, ending where the model's output begins. */
  prompt: string;
  /** What the model should write: JSON, or free text then the trigger then JSON. */
  completion: string;
  /** The JSON part of the completion. */
  json: string;
}

/** JSON on one line with ": " and ", ", the layout compileJSONSchema(schema, false, -1) enforces. */
export function oneLineJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(oneLineJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${oneLineJson(item)}`).join(', ')}}`;
  }
  return JSON.stringify(value);
}

const FIRST_NAMES = ['Maria', 'James', 'Aiko', 'Omar', 'Lena', 'Kwame', 'Sofia', 'Ravi', 'Elena', 'Tom', 'Nadia', 'Luis', 'Grace', 'Ivan', 'Mei', 'Pedro', 'Hana', 'Felix', 'Zara', 'Jonas'];
const LAST_NAMES = ['Lopez', 'Smith', 'Tanaka', 'Haddad', 'Novak', 'Mensah', 'Rossi', 'Patel', 'Ivanova', 'Brown', 'Khan', 'Garcia', 'Okafor', 'Petrov', 'Chen', 'Silva', 'Kim', 'Weber', 'Ali', 'Berg'];
const CLUBS = ['library', 'gym', 'chess club', 'choir', 'museum', 'rowing club', 'film society', 'garden club'];
const PRODUCTS = ['cable', 'hub', 'lamp', 'mouse', 'charger', 'stand', 'speaker', 'keyboard', 'adapter', 'bulb'];
const EVENTS = ['robotics meetup', 'book fair', 'jazz night', 'science talk', 'chess open', 'food festival', 'film screening', 'hackathon'];
const GOODS = ['eggs', 'apples', 'pencils', 'cookies', 'bottles', 'stamps', 'marbles', 'candles'];
const CONTAINERS = ['box', 'crate', 'bag', 'tray', 'pack', 'jar'];
const REVIEWS = {
  positive: ['The battery lasts two full days and the screen is bright.', 'Setup took a minute and it works perfectly.', 'Great sound, solid build, and fast shipping.', 'I love how light it is; it exceeded my hopes.'],
  negative: ['It stopped charging after a week and support never replied.', 'The strap broke on the first day.', 'Too loud, too slow, and the app keeps crashing.', 'Arrived scratched and missing the cable.'],
  neutral: ['It arrived on Tuesday in a plain box.', 'The device is black and weighs about 300 grams.', 'It does what the manual says, nothing more.', 'Delivery took five days, as stated.'],
} as const;
const NUMBER_WORDS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng.uniform() * items.length)] as T;
const between = (rng: Rng, low: number, high: number) => low + Math.floor(rng.uniform() * (high - low + 1));

function sentiment(rng: Rng): CorpusRecord {
  const label = pick(rng, ['positive', 'negative', 'neutral'] as const);
  const json = oneLineJson({ sentiment: label });
  return { preset: 'sentiment', prompt: `Review: ${pick(rng, REVIEWS[label])}\nJSON: `, completion: json, json };
}

function person(rng: Rng): CorpusRecord {
  const name = `${pick(rng, FIRST_NAMES)} ${pick(rng, LAST_NAMES)}`;
  const age = between(rng, 18, 90);
  const member = rng.uniform() < 0.5;
  const club = pick(rng, CLUBS);
  const text = member ? `${name}, ${age}, has been a ${club} member since ${between(rng, 2001, 2025)}.` : `${name} is ${age} and has never joined the ${club}.`;
  const json = oneLineJson({ name, age, member });
  return { preset: 'person', prompt: `Text: ${text}\nJSON: `, completion: json, json };
}

function order(rng: Rng): CorpusRecord {
  const orderId = `${String.fromCharCode(65 + between(rng, 0, 25))}-${between(rng, 10, 999)}`;
  const items = Array.from({ length: between(rng, 1, 3) }, () => ({
    sku: `${pick(rng, PRODUCTS).slice(0, 1).toUpperCase()}-${between(rng, 10, 500)}`,
    quantity: between(rng, 1, 9),
  }));
  const total = Math.round(between(rng, 100, 50_000)) / 100;
  const listed = items.map((item) => `${NUMBER_WORDS[item.quantity - 1]} ${item.sku}`).join(' and ');
  const json = oneLineJson({ order_id: orderId, items, total });
  return { preset: 'order', prompt: `Text: Order ${orderId}: ${listed}, ${total} in all.\nJSON: `, completion: json, json };
}

function event(rng: Rng): CorpusRecord {
  const title = pick(rng, EVENTS);
  const date = `20${between(rng, 10, 30)}-${String(between(rng, 1, 12)).padStart(2, '0')}-${String(between(rng, 1, 28)).padStart(2, '0')}`;
  const attendees = between(rng, 1, 500);
  const rating = between(rng, 0, 10) / 2;
  const json = oneLineJson({ title, date, attendees, rating });
  return {
    preset: 'event',
    prompt: `Text: The ${title} on ${date} drew ${attendees} people and was rated ${rating}.\nJSON: `,
    completion: json,
    json,
  };
}

function reasoning(rng: Rng): CorpusRecord {
  const goods = pick(rng, GOODS);
  const container = pick(rng, CONTAINERS);
  const per = between(rng, 2, 24);
  const count = between(rng, 2, 9);
  const json = oneLineJson({ answer: per * count, confident: true });
  return {
    preset: 'reasoning',
    prompt: `Question: A ${container} holds ${per} ${goods}. How many ${goods} are in ${count} ${container}s? Think, then give the answer.\n`,
    completion: `${per} ${goods} per ${container} times ${count} is ${per * count}. Answer: ${json}`,
    json,
  };
}

const GENERATORS = [sentiment, person, order, event, reasoning];

/** `count` records, cycling through the presets so that each gets a fifth. */
export function generateCorpus(seed: number, count: number): CorpusRecord[] {
  const rng = createRng(seed);
  return Array.from({ length: count }, (_, i) => (GENERATORS[i % GENERATORS.length] as (rng: Rng) => CorpusRecord)(rng));
}
