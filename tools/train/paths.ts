/** Where the bundled tokenizer and models live, shared by the build scripts and the tests. */
export const STOP_TOKEN = '<|endoftext|>';
export const TOKENIZER_PATH = 'public/models/speclab-tokenizer/tokenizer.json';
/** The bundled models' context: every corpus record must fit in it. */
export const CONTEXT_LENGTH = 256;
