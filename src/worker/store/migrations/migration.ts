// One numbered change to the schema: its SQL written out whole, never built from another's text, so
// editing one migration can never rewrite what another shipped.
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
