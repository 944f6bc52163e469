// The gateway client's public surface.

export { createGatewayClient } from './client.js';
export type { DownloadOptions, GatewayClient, GatewayClientOptions, SendOptions, SendOutcome } from './client.js';
export { DownloadError, GatewayHttpError, GatewayTransportError, errorSummary } from './errors.js';
export type { DownloadFailure, ErrorSummary, TransportErrorCode } from './errors.js';
export { normaliseTaskStatus, phaseOf, QUOTA_PER_USD } from './task-status.js';
export type { TaskPhase, TaskStatus } from './task-status.js';
