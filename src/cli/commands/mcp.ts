// `kb mcp`: the MCP server on stdio (see cli/mcp/server.ts). Lazy-loaded: no other command pays for the SDK.
import { type GlobalOptions, withEngine } from '../context.js';

export async function mcpCommand(g: GlobalOptions, version: string): Promise<number> {
  return withEngine({ ...g, json: true }, async (engine) => {
    const { serveMcp } = await import('../mcp/server.js');
    await serveMcp(engine, version);
  });
}
