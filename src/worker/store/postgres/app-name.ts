// The name a kb serve's PostgreSQL connections carry (PGAPPNAME, set by cli/commands/serve.ts), so kb
// doctor can tell a server connected as the schema's owner from the owner's own commands.
export const SERVE_APP_NAME = 'kb serve';
