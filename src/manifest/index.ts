export { readManifest, type ReadOptions } from './read-manifest.js';
export { formatRowError, type ManifestEntry, type ManifestRow, type RowError } from './types.js';
export { canonicalJson, contentHash, hashCanonicalRequest } from './content-hash.js';
export { ManifestFileError } from './manifest-file.js';
