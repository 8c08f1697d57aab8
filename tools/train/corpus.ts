/**
 * The training corpus for the bundled draft/target pair: seeded text → JSON extraction records. Each record
 * is a prompt and the JSON in the grammar's one-line layout (": " and ", "), so that the models learn the
 * layout the mask enforces. Deterministic in the seed.
 *
 * Two generators:
 * - `generateCorpus` (training and evaluation) teaches reading: the five presets' forms with values drawn
 *   from open-ended generators (random syllables, mixed letters and digits of varied length, numbers of
 *   varied length), so that copying from the prompt is the only way to get a field right; and custom flat
 *   schemas of 1–5 fields with random key names and types, whose values the prompt states in varied
 *   sentence forms, so that a schema typed into the editor works too.
 * - `generateTokenizerCorpus` is the closed-list corpus the bundled tokenizer was trained on (five fixed
 *   templates, 20 × 20 names); kept so that `npm run models:tokenizer` still rebuilds that file exactly.
 */
import { createRng, type Rng } from '../../src/core/rng';
import { SCHEMA_PRESETS, type SchemaPreset } from '../../src/contract/presets';

export type CorpusKind = SchemaPreset['id'] | 'custom';

export interface CorpusRecord {
  preset: CorpusKind;
  /** The JSON schema the completion's JSON follows (the preset's, or the record's own custom schema). */
  schema: Record<string, unknown>;
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
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}: ${oneLineJson(item)}`)
      .join(', ')}}`;
  }
  return JSON.stringify(value);
}

const presetSchema = (id: SchemaPreset['id']) =>
  (SCHEMA_PRESETS.find((preset) => preset.id === id) as SchemaPreset).schema;

const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng.uniform() * items.length)] as T;
const between = (rng: Rng, low: number, high: number) => low + Math.floor(rng.uniform() * (high - low + 1));
const chance = (rng: Rng, p: number) => rng.uniform() < p;
const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

// ---------------------------------------------------------------------------------------------------------
// The closed-list corpus of the bundled tokenizer. Do not change: the tokenizer test rebuilds from it.

const FIRST_NAMES = [
  'Maria',
  'James',
  'Aiko',
  'Omar',
  'Lena',
  'Kwame',
  'Sofia',
  'Ravi',
  'Elena',
  'Tom',
  'Nadia',
  'Luis',
  'Grace',
  'Ivan',
  'Mei',
  'Pedro',
  'Hana',
  'Felix',
  'Zara',
  'Jonas',
];
const LAST_NAMES = [
  'Lopez',
  'Smith',
  'Tanaka',
  'Haddad',
  'Novak',
  'Mensah',
  'Rossi',
  'Patel',
  'Ivanova',
  'Brown',
  'Khan',
  'Garcia',
  'Okafor',
  'Petrov',
  'Chen',
  'Silva',
  'Kim',
  'Weber',
  'Ali',
  'Berg',
];
const CLUBS = ['library', 'gym', 'chess club', 'choir', 'museum', 'rowing club', 'film society', 'garden club'];
const PRODUCTS = ['cable', 'hub', 'lamp', 'mouse', 'charger', 'stand', 'speaker', 'keyboard', 'adapter', 'bulb'];
const EVENTS = [
  'robotics meetup',
  'book fair',
  'jazz night',
  'science talk',
  'chess open',
  'food festival',
  'film screening',
  'hackathon',
];
const GOODS = ['eggs', 'apples', 'pencils', 'cookies', 'bottles', 'stamps', 'marbles', 'candles'];
const CONTAINERS = ['box', 'crate', 'bag', 'tray', 'pack', 'jar'];
const REVIEWS = {
  positive: [
    'The battery lasts two full days and the screen is bright.',
    'Setup took a minute and it works perfectly.',
    'Great sound, solid build, and fast shipping.',
    'I love how light it is; it exceeded my hopes.',
  ],
  negative: [
    'It stopped charging after a week and support never replied.',
    'The strap broke on the first day.',
    'Too loud, too slow, and the app keeps crashing.',
    'Arrived scratched and missing the cable.',
  ],
  neutral: [
    'It arrived on Tuesday in a plain box.',
    'The device is black and weighs about 300 grams.',
    'It does what the manual says, nothing more.',
    'Delivery took five days, as stated.',
  ],
} as const;
const NUMBER_WORDS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];

function closedSentiment(rng: Rng): CorpusRecord {
  const label = pick(rng, ['positive', 'negative', 'neutral'] as const);
  const json = oneLineJson({ sentiment: label });
  return {
    preset: 'sentiment',
    schema: presetSchema('sentiment'),
    prompt: `Review: ${pick(rng, REVIEWS[label])}\nJSON: `,
    completion: json,
    json,
  };
}

function closedPerson(rng: Rng): CorpusRecord {
  const name = `${pick(rng, FIRST_NAMES)} ${pick(rng, LAST_NAMES)}`;
  const age = between(rng, 18, 90);
  const member = rng.uniform() < 0.5;
  const club = pick(rng, CLUBS);
  const text = member
    ? `${name}, ${age}, has been a ${club} member since ${between(rng, 2001, 2025)}.`
    : `${name} is ${age} and has never joined the ${club}.`;
  const json = oneLineJson({ name, age, member });
  return { preset: 'person', schema: presetSchema('person'), prompt: `Text: ${text}\nJSON: `, completion: json, json };
}

function closedOrder(rng: Rng): CorpusRecord {
  const orderId = `${String.fromCharCode(65 + between(rng, 0, 25))}-${between(rng, 10, 999)}`;
  const items = Array.from({ length: between(rng, 1, 3) }, () => ({
    sku: `${pick(rng, PRODUCTS).slice(0, 1).toUpperCase()}-${between(rng, 10, 500)}`,
    quantity: between(rng, 1, 9),
  }));
  const total = Math.round(between(rng, 100, 50_000)) / 100;
  const listed = items.map((item) => `${NUMBER_WORDS[item.quantity - 1]} ${item.sku}`).join(' and ');
  const json = oneLineJson({ order_id: orderId, items, total });
  return {
    preset: 'order',
    schema: presetSchema('order'),
    prompt: `Text: Order ${orderId}: ${listed}, ${total} in all.\nJSON: `,
    completion: json,
    json,
  };
}

function closedEvent(rng: Rng): CorpusRecord {
  const title = pick(rng, EVENTS);
  const date = `20${between(rng, 10, 30)}-${String(between(rng, 1, 12)).padStart(2, '0')}-${String(between(rng, 1, 28)).padStart(2, '0')}`;
  const attendees = between(rng, 1, 500);
  const rating = between(rng, 0, 10) / 2;
  const json = oneLineJson({ title, date, attendees, rating });
  return {
    preset: 'event',
    schema: presetSchema('event'),
    prompt: `Text: The ${title} on ${date} drew ${attendees} people and was rated ${rating}.\nJSON: `,
    completion: json,
    json,
  };
}

function closedReasoning(rng: Rng): CorpusRecord {
  const goods = pick(rng, GOODS);
  const container = pick(rng, CONTAINERS);
  const per = between(rng, 2, 24);
  const count = between(rng, 2, 9);
  const json = oneLineJson({ answer: per * count, confident: true });
  return {
    preset: 'reasoning',
    schema: presetSchema('reasoning'),
    prompt: `Question: A ${container} holds ${per} ${goods}. How many ${goods} are in ${count} ${container}s? Think, then give the answer.\n`,
    completion: `${per} ${goods} per ${container} times ${count} is ${per * count}. Answer: ${json}`,
    json,
  };
}

const CLOSED_GENERATORS = [closedSentiment, closedPerson, closedOrder, closedEvent, closedReasoning];

/** The closed-list corpus the bundled tokenizer was trained on, cycling through the five presets. */
export function generateTokenizerCorpus(seed: number, count: number): CorpusRecord[] {
  const rng = createRng(seed);
  return Array.from({ length: count }, (_, i) =>
    (CLOSED_GENERATORS[i % CLOSED_GENERATORS.length] as (rng: Rng) => CorpusRecord)(rng),
  );
}

// ---------------------------------------------------------------------------------------------------------
// Open-ended values: the model can only get them right by copying them from the prompt.

const ONSETS = [
  'b',
  'd',
  'f',
  'g',
  'h',
  'k',
  'l',
  'm',
  'n',
  'p',
  'r',
  's',
  't',
  'v',
  'w',
  'z',
  'ch',
  'sh',
  'br',
  'tr',
  'kl',
  'st',
  'j',
  'y',
];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'a', 'e', 'o', 'ai', 'ou'];
const CODAS = ['', '', '', 'n', 'r', 'l', 's', 'k', 'm', 't'];

/** A pronounceable nonsense word of `low`–`high` syllables. */
function syllables(rng: Rng, low: number, high: number): string {
  let word = '';
  for (let i = between(rng, low, high); i > 0; i--) word += pick(rng, ONSETS) + pick(rng, VOWELS) + pick(rng, CODAS);
  return word;
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const ALPHANUMERIC = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz0123456789';

function characters(rng: Rng, alphabet: string, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += alphabet.charAt(between(rng, 0, alphabet.length - 1));
  return text;
}

/** Digits of a varied length (1–`maxDigits`), no leading zero. */
function digits(rng: Rng, maxDigits: number): number {
  const length = between(rng, 1, maxDigits);
  return length === 1 ? between(rng, 0, 9) : between(rng, 10 ** (length - 1), 10 ** length - 1);
}

/** A code of mixed Latin letters and digits: "X-100", "QK-7", "b4Kz9", "TR2048". */
function code(rng: Rng): string {
  switch (between(rng, 0, 2)) {
    case 0:
      return `${characters(rng, LETTERS, between(rng, 1, 2))}-${digits(rng, 4)}`;
    case 1:
      return characters(rng, ALPHANUMERIC, between(rng, 3, 6));
    default:
      return `${characters(rng, LETTERS, between(rng, 1, 3))}${digits(rng, 4)}`;
  }
}

function personName(rng: Rng): string {
  const first = chance(rng, 0.2) ? pick(rng, FIRST_NAMES) : capitalize(syllables(rng, 1, 3));
  const last = chance(rng, 0.2) ? pick(rng, LAST_NAMES) : capitalize(syllables(rng, 1, 3));
  const shape = rng.uniform();
  if (shape < 0.1) return first;
  if (shape < 0.2) return `${first} ${capitalize(syllables(rng, 1, 2))} ${last}`;
  return `${first} ${last}`;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const CLUB_KINDS = ['club', 'society', 'team', 'circle', 'guild', 'league'];
const MORE_PRODUCTS = [
  ...PRODUCTS,
  'cable',
  'hub',
  'monitor',
  'battery',
  'sensor',
  'router',
  'camera',
  'tripod',
  'printer',
  'drive',
  'fan',
  'clock',
  'pen',
  'mug',
  'kettle',
  'plug',
];
const EVENT_KINDS = [
  'meetup',
  'fair',
  'night',
  'talk',
  'open',
  'festival',
  'screening',
  'summit',
  'workshop',
  'concert',
  'market',
  'race',
  'show',
  'forum',
];
const MORE_GOODS = [
  ...GOODS,
  'oranges',
  'pears',
  'buttons',
  'shells',
  'coins',
  'cards',
  'books',
  'socks',
  'cups',
  'plates',
  'nails',
  'bolts',
  'beads',
  'tiles',
  'seeds',
  'lemons',
  'muffins',
  'bricks',
  'balls',
  'dice',
  'rings',
  'spoons',
  'tickets',
  'letters',
];
const MORE_CONTAINERS = [
  ...CONTAINERS,
  'basket',
  'carton',
  'bucket',
  'drawer',
  'shelf',
  'barrel',
  'sack',
  'bin',
  'case',
  'tin',
  'bowl',
  'chest',
  'pouch',
  'rack',
  'cart',
  'truck',
];

function plural(noun: string): string {
  return /(s|x|ch|sh)$/.test(noun) ? `${noun}es` : `${noun}s`;
}

/** A number as the text states it (either "31.50" or "31.5"), and as JSON writes it (31.5). */
function priced(rng: Rng): { text: string; value: number } {
  const cents = between(rng, 1, 9_999_99);
  const value = cents / 100;
  return { text: chance(rng, 0.5) ? value.toFixed(2) : String(value), value };
}

// ---------------------------------------------------------------------------------------------------------
// The presets' forms, reading open-ended values.

const REVIEW_PARTS = {
  positive: [
    'works perfectly',
    'exceeded my hopes',
    'is a joy to use',
    'is worth every cent',
    'feels solid and well made',
    'arrived early and works great',
    'has a bright, sharp screen',
    'lasts for days on one charge',
    'sounds wonderful',
    'was easy to set up',
  ],
  negative: [
    'broke on the first day',
    'stopped working after a week',
    'keeps crashing',
    'arrived scratched',
    'is a waste of money',
    'never charged properly',
    'feels cheap and flimsy',
    'was missing parts',
    'is far too loud',
    'disappointed me badly',
  ],
  neutral: [
    'arrived on Tuesday',
    'comes in a plain box',
    'is black and weighs about 300 grams',
    'does what the manual says',
    'took five days to arrive',
    'has two buttons and a cable',
    'is the same size as the old one',
    'was delivered as stated',
    'comes with a short manual',
    'is sold in three colours',
  ],
} as const;
const REVIEW_OPENERS = ['The', 'This', 'My new', 'Our', 'The second'];

/** The closed list's reviews, each with the words that carry its sentiment (the `reason` the JSON copies). */
const REVIEW_REASONS: Record<string, string> = {
  'The battery lasts two full days and the screen is bright.': 'lasts two full days',
  'Setup took a minute and it works perfectly.': 'works perfectly',
  'Great sound, solid build, and fast shipping.': 'Great sound',
  'I love how light it is; it exceeded my hopes.': 'exceeded my hopes',
  'It stopped charging after a week and support never replied.': 'stopped charging after a week',
  'The strap broke on the first day.': 'broke on the first day',
  'Too loud, too slow, and the app keeps crashing.': 'keeps crashing',
  'Arrived scratched and missing the cable.': 'Arrived scratched',
  'It arrived on Tuesday in a plain box.': 'arrived on Tuesday',
  'The device is black and weighs about 300 grams.': 'weighs about 300 grams',
  'It does what the manual says, nothing more.': 'does what the manual says',
  'Delivery took five days, as stated.': 'took five days',
};

function sentiment(rng: Rng): CorpusRecord {
  const label = pick(rng, ['positive', 'negative', 'neutral'] as const);
  let review: string;
  let reason: string;
  if (chance(rng, 0.2)) {
    review = pick(rng, REVIEWS[label]);
    reason = REVIEW_REASONS[review] as string;
  } else {
    const product = chance(rng, 0.6) ? pick(rng, MORE_PRODUCTS) : syllables(rng, 1, 3);
    reason = pick(rng, REVIEW_PARTS[label]);
    review = `${pick(rng, REVIEW_OPENERS)} ${product} ${reason}.`;
    if (chance(rng, 0.5)) review += ` It ${pick(rng, REVIEW_PARTS[label])}.`;
  }
  const json = oneLineJson({ sentiment: label, reason });
  return {
    preset: 'sentiment',
    schema: presetSchema('sentiment'),
    prompt: `Review: ${review}\nJSON: `,
    completion: json,
    json,
  };
}

function person(rng: Rng): CorpusRecord {
  const name = personName(rng);
  const age = between(rng, 1, 99);
  const member = chance(rng, 0.5);
  const club = chance(rng, 0.4) ? pick(rng, CLUBS) : `${syllables(rng, 1, 2)} ${pick(rng, CLUB_KINDS)}`;
  const since = chance(rng, 0.5) ? pick(rng, MONTHS) : String(between(rng, 1950, 2026));
  const forms = member
    ? [
        `${name}, ${age}, has been a ${club} member since ${since}.`,
        `${name} (${age}) joined the ${club} in ${since}.`,
        `Member of the ${club}: ${name}, ${age} years old.`,
        `${name} is ${age} and belongs to the ${club}.`,
      ]
    : [
        `${name} is ${age} and has never joined the ${club}.`,
        `${name}, aged ${age}, is not a member of the ${club}.`,
        `${name} (${age}) left the ${club} in ${since}.`,
        `${name}, ${age}, is not in the ${club}.`,
      ];
  const json = oneLineJson({ name, age, member });
  return {
    preset: 'person',
    schema: presetSchema('person'),
    prompt: `Text: ${pick(rng, forms)}\nJSON: `,
    completion: json,
    json,
  };
}

function order(rng: Rng): CorpusRecord {
  const orderId = chance(rng, 0.5) ? `${characters(rng, LETTERS, between(rng, 1, 2))}-${digits(rng, 4)}` : code(rng);
  const items = Array.from({ length: between(rng, 1, 3) }, () => ({ sku: code(rng), quantity: between(rng, 1, 9) }));
  const listed = items
    .map((item) => {
      const quantity = chance(rng, 0.7) ? (NUMBER_WORDS[item.quantity - 1] as string) : String(item.quantity);
      if (chance(rng, 0.5)) return `${quantity} ${item.sku}`;
      const product = chance(rng, 0.7) ? pick(rng, MORE_PRODUCTS) : syllables(rng, 1, 2);
      return `${quantity} ${item.sku} ${item.quantity === 1 ? product : plural(product)}`;
    })
    .join(chance(rng, 0.5) ? ' and ' : ', ');
  const total = priced(rng);
  const forms = [
    `Order ${orderId}: ${listed}, ${total.text} in all.`,
    `Order ${orderId} holds ${listed}; the total is ${total.text}.`,
    `${capitalize(listed)} in order ${orderId}, for ${total.text}.`,
  ];
  const json = oneLineJson({ order_id: orderId, items, total: total.value });
  return {
    preset: 'order',
    schema: presetSchema('order'),
    prompt: `Text: ${pick(rng, forms)}\nJSON: `,
    completion: json,
    json,
  };
}

function event(rng: Rng): CorpusRecord {
  const title = chance(rng, 0.25)
    ? pick(rng, EVENTS)
    : `${chance(rng, 0.5) ? syllables(rng, 1, 3) : capitalize(syllables(rng, 1, 3))} ${pick(rng, EVENT_KINDS)}`;
  const date = `${between(rng, 1990, 2039)}-${String(between(rng, 1, 12)).padStart(2, '0')}-${String(between(rng, 1, 28)).padStart(2, '0')}`;
  const attendees = between(rng, 1, 500);
  const rating = chance(rng, 0.6) ? between(rng, 0, 10) / 2 : between(rng, 0, 50) / 10;
  const forms = [
    `The ${title} on ${date} drew ${attendees} people and was rated ${rating}.`,
    `At the ${title}, ${date}: ${attendees} attendees, rating ${rating}.`,
    `On ${date}, ${attendees} people came to the ${title} and rated it ${rating}.`,
  ];
  const json = oneLineJson({ title, date, attendees, rating });
  return {
    preset: 'event',
    schema: presetSchema('event'),
    prompt: `Text: ${pick(rng, forms)}\nJSON: `,
    completion: json,
    json,
  };
}

function reasoning(rng: Rng): CorpusRecord {
  const goods = chance(rng, 0.75) ? pick(rng, MORE_GOODS) : plural(syllables(rng, 1, 2));
  const container = chance(rng, 0.75) ? pick(rng, MORE_CONTAINERS) : syllables(rng, 1, 2);
  const per = between(rng, 2, 24);
  const count = between(rng, 2, 9);
  const json = oneLineJson({ answer: per * count, confident: true });
  return {
    preset: 'reasoning',
    schema: presetSchema('reasoning'),
    prompt: `Question: A ${container} holds ${per} ${goods}. How many ${goods} are in ${count} ${plural(container)}? Think, then give the answer.\n`,
    completion: `${per} ${goods} per ${container} times ${count} is ${per * count}. Answer: ${json}`,
    json,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Custom flat schemas: random key names and types, values stated in varied sentence forms.

export const KEY_WORDS = [
  'city',
  'country',
  'color',
  'owner',
  'title',
  'price',
  'count',
  'weight',
  'height',
  'status',
  'level',
  'code',
  'brand',
  'model',
  'animal',
  'planet',
  'river',
  'street',
  'team',
  'score',
  'speed',
  'size',
  'year',
  'rank',
  'author',
  'language',
  'tool',
  'fruit',
  'flavor',
  'shape',
  'material',
  'genre',
  'role',
  'species',
  'mood',
  'tag',
  'label',
  'region',
  'vendor',
  'room',
  'floor',
  'seats',
  'pages',
  'votes',
  'visitors',
  'distance',
  'duration',
  'volume',
  'temperature',
  'balance',
  'fee',
  'open',
  'active',
  'verified',
  'available',
  'shipped',
  'paid',
  'public',
  'urgent',
  'name',
  'email',
  'category',
  'priority',
  'capital',
  'island',
  'mountain',
  'lake',
  'song',
  'album',
  'artist',
  'movie',
  'director',
  'book',
  'chapter',
  'car',
  'engine',
  'pet',
  'breed',
  'dish',
  'chef',
  'school',
  'teacher',
  'course',
  'grade',
  'age',
  'id',
  'quantity',
  'rating',
  'budget',
  'salary',
  'company',
  'product',
  'version',
  'port',
  'host',
  'user',
  'password_hint',
  'home_city',
  'first_name',
  'last_name',
  'zip_code',
  'max_speed',
  'is_open',
  'in_stock',
  'unit_price',
  'page_count',
  'team_name',
  'start_year',
  'file_name',
  'device',
] as const;
const ENUM_WORDS = [
  'red',
  'green',
  'blue',
  'low',
  'medium',
  'high',
  'small',
  'large',
  'new',
  'used',
  'open',
  'closed',
  'north',
  'south',
  'east',
  'west',
  'cat',
  'dog',
  'bird',
  'gold',
  'silver',
  'bronze',
  'draft',
  'final',
  'yes',
  'maybe',
  'daily',
  'weekly',
  'monthly',
  'hot',
  'cold',
  'warm',
];
type FieldType = 'string' | 'integer' | 'number' | 'boolean' | 'enum';
const FIELD_TYPES: readonly FieldType[] = ['string', 'string', 'integer', 'number', 'boolean', 'enum'];

interface Field {
  key: string;
  schema: Record<string, unknown>;
  value: string | number | boolean;
  /** The value as the prompt states it. */
  stated: string;
}

function stringValue(rng: Rng): string {
  switch (between(rng, 0, 4)) {
    case 0:
      return capitalize(syllables(rng, 1, 3));
    case 1:
      return syllables(rng, 1, 3);
    case 2:
      return `${capitalize(syllables(rng, 1, 2))} ${capitalize(syllables(rng, 1, 2))}`;
    case 3:
      return code(rng);
    default:
      return chance(rng, 0.5) ? pick(rng, MORE_GOODS) : `${pick(rng, FIRST_NAMES)} ${pick(rng, LAST_NAMES)}`;
  }
}

function field(rng: Rng, key: string): Field {
  const type = pick(rng, FIELD_TYPES);
  switch (type) {
    case 'string': {
      const value = stringValue(rng);
      return { key, schema: { type: 'string' }, value, stated: value };
    }
    case 'integer': {
      const value = digits(rng, 6);
      return { key, schema: { type: 'integer' }, value, stated: String(value) };
    }
    case 'number': {
      const value = digits(rng, 4) + between(rng, 1, 99) / 100;
      const rounded = Math.round(value * 100) / 100;
      return { key, schema: { type: 'number' }, value: rounded, stated: String(rounded) };
    }
    case 'boolean': {
      const value = chance(rng, 0.5);
      const stated = chance(rng, 0.5) ? String(value) : value ? 'yes' : 'no';
      return { key, schema: { type: 'boolean' }, value, stated };
    }
    case 'enum': {
      const options: string[] = [];
      const size = between(rng, 2, 4);
      while (options.length < size) {
        const option = chance(rng, 0.6) ? pick(rng, ENUM_WORDS) : syllables(rng, 1, 2);
        if (!options.includes(option)) options.push(option);
      }
      const value = pick(rng, options);
      return { key, schema: { enum: options }, value, stated: value };
    }
  }
}

function statement(rng: Rng, field: Field): string {
  const key = chance(rng, 0.5) ? field.key.replaceAll('_', ' ') : field.key;
  const forms = [
    `The ${key} is ${field.stated}.`,
    `${capitalize(key)}: ${field.stated}.`,
    `Its ${key} is ${field.stated}.`,
    `${key} = ${field.stated};`,
    `${capitalize(key)} ${field.stated}.`,
  ];
  if (field.schema.type === 'boolean') forms.push(`${capitalize(key)}? ${field.stated}.`);
  else forms.push(`It has ${key} ${field.stated}.`);
  return pick(rng, forms);
}

/**
 * A custom schema's prompt: mostly in the presets' frame, but a teacher who types a schema may type the bare
 * sentence too, so some prompts end at the sentence or at a newline and the JSON follows.
 */
function framed(rng: Rng, text: string): string {
  const frame = rng.uniform();
  if (frame < 0.7) return `Text: ${text}\nJSON: `;
  return frame < 0.85 ? `${text}\n` : text;
}

function custom(rng: Rng): CorpusRecord {
  const keys: string[] = [];
  const size = between(rng, 1, 5);
  while (keys.length < size) {
    const key = pick(rng, KEY_WORDS);
    if (!keys.includes(key)) keys.push(key);
  }
  const fields = keys.map((key) => field(rng, key));
  const spoken = fields.map((item) => statement(rng, item));
  // Half the prompts state the fields in another order than the schema's, so that the model looks the key up.
  if (chance(rng, 0.5)) {
    for (let i = spoken.length - 1; i > 0; i--) {
      const j = between(rng, 0, i);
      [spoken[i], spoken[j]] = [spoken[j] as string, spoken[i] as string];
    }
  }
  const schema = {
    type: 'object',
    properties: Object.fromEntries(fields.map((item) => [item.key, item.schema])),
    required: keys,
    additionalProperties: false,
  };
  const json = oneLineJson(Object.fromEntries(fields.map((item) => [item.key, item.value])));
  return { preset: 'custom', schema, prompt: framed(rng, spoken.join(' ')), completion: json, json };
}

// ---------------------------------------------------------------------------------------------------------
// Custom schemas read from text as people write it: the prompt names no key, only the words around each
// value ("The Hobbit by J.R.R. Tolkien, published 1937, in stock."), so the model must tell the fields apart
// by their connecting words and their kind.

interface Slot {
  /** Key names a schema might use for this slot. */
  keys: readonly string[];
  schema: Record<string, unknown>;
  value: string | number | boolean;
}

interface Described {
  slots: Slot[];
  text: string;
}

/** "The Hobbit", "Dune", "Night Train", "Zorbek Valley". */
function title(rng: Rng): string {
  const words = Array.from({ length: between(rng, 1, 3) }, () => capitalize(syllables(rng, 1, 3)));
  return `${chance(rng, 0.3) ? 'The ' : ''}${words.join(' ')}`;
}

/** A name as a byline writes it, initials included: "J.R.R. Tolkien", "Ursula Le Guin", "T. Brak". */
function byline(rng: Rng): string {
  if (!chance(rng, 0.35)) return personName(rng);
  const initials = Array.from({ length: between(rng, 1, 3) }, () => `${characters(rng, LETTERS, 1)}.`).join('');
  return `${initials} ${capitalize(syllables(rng, 1, 3))}`;
}

const stock = (rng: Rng, available: boolean) =>
  pick(rng, available ? ['in stock', 'available', 'on the shelf'] : ['out of stock', 'sold out', 'not available']);

function describedWork(rng: Rng): Described {
  const kind = pick(rng, [
    {
      creator: ['author', 'writer'],
      made: 'written',
      dated: 'published',
      count: ['pages', 'page_count'],
      unit: 'pages',
      work: ['title', 'book', 'name'],
    },
    {
      creator: ['director'],
      made: 'directed',
      dated: 'released',
      count: ['minutes', 'duration', 'runtime'],
      unit: 'minutes',
      work: ['title', 'movie', 'film'],
    },
    {
      creator: ['artist', 'band'],
      made: 'recorded',
      dated: 'released',
      count: ['tracks', 'track_count'],
      unit: 'tracks',
      work: ['title', 'album'],
    },
  ]);
  const name = title(rng);
  const creator = byline(rng);
  const year = between(rng, 1800, 2026);
  const count = between(rng, 2, 900);
  const available = chance(rng, 0.5);
  const status = stock(rng, available);
  // The first form states no count, and the record then leaves that slot out.
  const forms = [
    `${name} by ${creator}, ${kind.dated} ${year}, ${status}.`,
    `${creator}'s ${name} (${year}, ${count} ${kind.unit}) is ${status}.`,
    `${name}, ${kind.made} by ${creator} in ${year}: ${count} ${kind.unit}, ${status}.`,
    `${capitalize(status)}: ${name} by ${creator} (${year}), ${count} ${kind.unit}.`,
    `${capitalize(kind.dated)} in ${year}, ${creator}'s ${name} has ${count} ${kind.unit} and is ${status}.`,
  ];
  const form = between(rng, 0, forms.length - 1);
  const slots: Slot[] = [
    { keys: kind.work, schema: { type: 'string' }, value: name },
    { keys: kind.creator, schema: { type: 'string' }, value: creator },
    { keys: ['year', `${kind.dated}_year`, kind.dated], schema: { type: 'integer' }, value: year },
    { keys: ['available', 'in_stock'], schema: { type: 'boolean' }, value: available },
  ];
  if (form > 0) slots.push({ keys: kind.count, schema: { type: 'integer' }, value: count });
  return { slots, text: forms[form] as string };
}

function describedPlace(rng: Rng): Described {
  const city = capitalize(syllables(rng, 1, 3));
  const country = capitalize(syllables(rng, 1, 3));
  const population = digits(rng, 7);
  const capital = chance(rng, 0.5);
  const role = capital
    ? pick(rng, ['the capital', 'its capital'])
    : pick(rng, ['not the capital', 'a provincial town']);
  const forms = [
    `${city}, ${country}: population ${population}, ${role}.`,
    `${city} (${country}) has ${population} residents and is ${role}.`,
    `${city} is ${role} of ${country}, with ${population} people.`,
    `In ${country}, ${city} (${role}) is home to ${population} people.`,
  ];
  return {
    slots: [
      { keys: ['city', 'name', 'town'], schema: { type: 'string' }, value: city },
      { keys: ['country', 'nation'], schema: { type: 'string' }, value: country },
      { keys: ['population', 'residents'], schema: { type: 'integer' }, value: population },
      { keys: ['capital', 'is_capital'], schema: { type: 'boolean' }, value: capital },
    ],
    text: pick(rng, forms),
  };
}

const COLORS = ['red', 'green', 'blue', 'black', 'white', 'silver', 'yellow', 'grey', 'orange', 'purple'];

function describedProduct(rng: Rng): Described {
  const brand = capitalize(syllables(rng, 1, 2));
  const model = chance(rng, 0.5) ? code(rng) : capitalize(syllables(rng, 1, 3));
  const color = pick(rng, COLORS);
  const price = priced(rng);
  const available = chance(rng, 0.5);
  const status = stock(rng, available);
  const forms = [
    `${brand} ${model} in ${color} for $${price.text}, ${status}.`,
    `The ${color} ${model} from ${brand} costs ${price.text} dollars and is ${status}.`,
    `${capitalize(status)}: ${brand}'s ${model} (${color}), $${price.text}.`,
    `${brand} makes the ${model}; this one is ${color}, $${price.text}, ${status}.`,
  ];
  return {
    slots: [
      { keys: ['brand', 'maker'], schema: { type: 'string' }, value: brand },
      { keys: ['model', 'product', 'name'], schema: { type: 'string' }, value: model },
      { keys: ['color', 'colour'], schema: { enum: COLORS }, value: color },
      { keys: ['price', 'unit_price'], schema: { type: 'number' }, value: price.value },
      { keys: ['available', 'in_stock'], schema: { type: 'boolean' }, value: available },
    ],
    text: pick(rng, forms),
  };
}

function describedFlight(rng: Rng): Described {
  const flight = `${characters(rng, LETTERS, 2)}${digits(rng, 4)}`;
  const origin = capitalize(syllables(rng, 1, 3));
  const destination = capitalize(syllables(rng, 1, 3));
  const gate = between(rng, 1, 60);
  const onTime = chance(rng, 0.5);
  const timing = onTime ? pick(rng, ['on time', 'on schedule']) : pick(rng, ['delayed', 'running late']);
  const forms = [
    `Flight ${flight} from ${origin} to ${destination}, gate ${gate}, is ${timing}.`,
    `${flight}: ${origin} to ${destination}, ${timing}, boarding at gate ${gate}.`,
    `The ${origin}-${destination} flight ${flight} leaves from gate ${gate} ${timing}.`,
  ];
  return {
    slots: [
      { keys: ['flight', 'code', 'flight_number'], schema: { type: 'string' }, value: flight },
      { keys: ['origin', 'from'], schema: { type: 'string' }, value: origin },
      { keys: ['destination', 'to'], schema: { type: 'string' }, value: destination },
      { keys: ['gate'], schema: { type: 'integer' }, value: gate },
      { keys: ['on_time'], schema: { type: 'boolean' }, value: onTime },
    ],
    text: pick(rng, forms),
  };
}

/** A custom schema over two or more of a described entity's slots, each under one of its usual key names. */
function described(rng: Rng): CorpusRecord {
  const entity = pick(rng, [describedWork, describedWork, describedPlace, describedProduct, describedFlight])(rng);
  let slots = entity.slots.filter(() => chance(rng, 0.75));
  if (slots.length < 2) slots = entity.slots.slice(0, 2);
  if (chance(rng, 0.3)) {
    for (let i = slots.length - 1; i > 0; i--) {
      const j = between(rng, 0, i);
      [slots[i], slots[j]] = [slots[j] as Slot, slots[i] as Slot];
    }
  }
  // An entity's slots share no key name, so the keys are distinct.
  const keys = slots.map((slot) => pick(rng, slot.keys));
  const schema = {
    type: 'object',
    properties: Object.fromEntries(slots.map((slot, i) => [keys[i] as string, slot.schema])),
    required: keys,
    additionalProperties: false,
  };
  const json = oneLineJson(Object.fromEntries(slots.map((slot, i) => [keys[i] as string, slot.value])));
  return { preset: 'custom', schema, prompt: framed(rng, entity.text), completion: json, json };
}

/** One cycle: every preset once, custom schemas with named keys twice, and described ones twice. */
const GENERATORS = [sentiment, person, order, event, reasoning, custom, described, custom, described];
export const CYCLE_LENGTH = GENERATORS.length;

/** `count` records, cycling through GENERATORS. */
export function generateCorpus(seed: number, count: number): CorpusRecord[] {
  const rng = createRng(seed);
  return Array.from({ length: count }, (_, i) =>
    (GENERATORS[i % GENERATORS.length] as (rng: Rng) => CorpusRecord)(rng),
  );
}
