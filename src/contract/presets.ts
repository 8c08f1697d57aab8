/**
 * Schema presets a teacher can switch between in one click, each with a prompt that asks for it. The
 * prompts end where the JSON (or, for reasoning, the free text) begins; output is one line with ": " and
 * ", " separators, the layout the grammar engine compiles.
 */
export interface SchemaPreset {
  id: 'sentiment' | 'person' | 'order' | 'event' | 'reasoning';
  title: string;
  schema: Record<string, unknown>;
  prompt: string;
  /** Output is free text until this string; the schema applies after it. */
  trigger?: string;
  /**
   * The lecture's run (docs/teaching.md): the seed and temperature the app takes with this preset, and the
   * step to show, with SpecTr-GBV, K = 3, L = 4 and the app's drafter (model + schema). Chosen so that this
   * step is the run's first with a branch, a rejected and an accepted draft-model token, and a correction
   * drawn from the residual (the first steps are often all forced by the schema). Pinned by
   * test/engine/bundledPipeline.test.ts.
   */
  lecture: { seed: number; temperature: number; step: number };
}

export const SCHEMA_PRESETS: readonly SchemaPreset[] = [
  {
    id: 'sentiment',
    title: 'Sentiment (enum and a reason)',
    schema: {
      type: 'object',
      properties: { sentiment: { enum: ['positive', 'negative', 'neutral'] }, reason: { type: 'string' } },
      required: ['sentiment', 'reason'],
      additionalProperties: false,
    },
    prompt: 'Review: The battery lasts two full days and the screen is bright.\nJSON: ',
    lecture: { seed: 24, temperature: 1.5, step: 3 },
  },
  {
    id: 'person',
    title: 'Person (flat object)',
    schema: {
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer' }, member: { type: 'boolean' } },
      required: ['name', 'age', 'member'],
      additionalProperties: false,
    },
    prompt: 'Text: Maria Lopez, 34, has been a library member since May.\nJSON: ',
    lecture: { seed: 18, temperature: 1, step: 2 },
  },
  {
    id: 'order',
    title: 'Order (nested, array of objects)',
    schema: {
      type: 'object',
      properties: {
        order_id: { type: 'string' },
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: { sku: { type: 'string' }, quantity: { type: 'integer' } },
            required: ['sku', 'quantity'],
            additionalProperties: false,
          },
        },
        total: { type: 'number' },
      },
      required: ['order_id', 'items', 'total'],
      additionalProperties: false,
    },
    prompt: 'Text: Order A-17: two X-100 cables and one H-20 hub, 31.50 in all.\nJSON: ',
    lecture: { seed: 4, temperature: 1, step: 2 },
  },
  {
    id: 'event',
    title: 'Event (date pattern, bounded numbers)',
    schema: {
      type: 'object',
      properties: {
        title: { type: 'string' },
        date: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' },
        attendees: { type: 'integer', minimum: 1, maximum: 500 },
        rating: { type: 'number', minimum: 0, maximum: 5 },
      },
      required: ['title', 'date', 'attendees', 'rating'],
      additionalProperties: false,
    },
    prompt: 'Text: The robotics meetup on 2026-03-14 drew 120 people and was rated 4.5.\nJSON: ',
    lecture: { seed: 21, temperature: 1.5, step: 4 },
  },
  {
    id: 'reasoning',
    title: 'Reasoning, then JSON',
    schema: {
      type: 'object',
      properties: { answer: { type: 'integer' }, confident: { type: 'boolean' } },
      required: ['answer', 'confident'],
      additionalProperties: false,
    },
    prompt: 'Question: A box holds 12 eggs. How many eggs are in 3 boxes? Think, then give the answer.\n',
    trigger: 'Answer: ',
    lecture: { seed: 1, temperature: 1, step: 2 },
  },
];
