// How hybrid search combines its two halves (`--fusion`, search.fusion). adaptive: Reciprocal Rank
// Fusion with the meaning half weighted by how clearly its best hit stands out from its tenth — a
// query the model has no clear answer for leans on the words (npm run bench -- meaning chose it with
// real models); rrf: the plain RRF kb began with; convex: a weighted sum of normalised scores.
export const FUSIONS = ['adaptive', 'rrf', 'convex'] as const;
export type Fusion = (typeof FUSIONS)[number];
