// How many hits one search returns at most — a number the contract checks and the app's "Show more"
// stops at, so it lives here, without zod: each hit is read back, re-scored and cut to a snippet, and
// a thousand took a team server half a second (npm run bench -- hostile). Past it, a narrower search.
export const MAX_TOP = 200;
