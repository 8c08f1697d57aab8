/** A schema the app cannot compile or enforce, with a message a user can act on. */
export class SchemaError extends Error {
  override readonly name = 'SchemaError';
}
