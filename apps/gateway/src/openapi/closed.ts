/**
 * `@Closed()` marks a response DTO whose spec shape allows no extra properties; the document
 * builder (document.ts) gives every marked schema `additionalProperties: false`. A decorator on the
 * DTO itself, so each resource's DTO file says it where the shape is defined, and adding a
 * resource never edits a shared list.
 */
const closed = new Set<string>();

export function Closed(): ClassDecorator {
  return (target) => {
    closed.add(target.name);
  };
}

/** Names of the DTO classes marked closed so far (decorators run when their module is imported). */
export function closedSchemaNames(): ReadonlySet<string> {
  return closed;
}
