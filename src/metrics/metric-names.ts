// The names gbatch's metrics are published under (a run's, and those read from journals): `gbatch_` and base
// units (seconds, bytes, usd), as Prometheus names them. docs/reference.md lists them and
// docs/grafana-dashboard.json queries them.
export const METRIC = {
  rows: 'gbatch_rows',
  spend: 'gbatch_spend_usd',
  reserved: 'gbatch_reserved_usd',
  budget: 'gbatch_budget_usd',
  forecast: 'gbatch_forecast_usd',
  estimate: 'gbatch_estimate_usd',
  settledEstimate: 'gbatch_settled_estimate_usd',
  settledActual: 'gbatch_settled_actual_usd',
  phase: 'gbatch_run_phase',
  paused: 'gbatch_rate_limit_paused',
  tasksInFlight: 'gbatch_video_tasks_in_flight',
  downloadsOpen: 'gbatch_downloads_open',
  startTime: 'gbatch_run_start_timestamp_seconds',
  requests: 'gbatch_requests_total',
  ratePauses: 'gbatch_rate_limit_pauses_total',
  submissions: 'gbatch_submissions_total',
  polls: 'gbatch_video_polls_total',
  downloads: 'gbatch_downloads_total',
  downloadBytes: 'gbatch_download_bytes_total',
  downloadFailures: 'gbatch_download_failures_total',
  taskDuration: 'gbatch_video_task_duration_seconds',
  commitDuration: 'gbatch_journal_commit_duration_seconds',
  leases: 'gbatch_runner_lease_refreshes_total',
  leaseRenewedAt: 'gbatch_runner_lease_refreshed_timestamp_seconds',
  lastSuccess: 'gbatch_last_success_timestamp_seconds',
  runners: 'gbatch_runners',
  lastActivity: 'gbatch_last_activity_timestamp_seconds',
  serverBudget: 'gbatch_server_budget_usd',
  serverSpend: 'gbatch_server_spend_usd',
  serverReserved: 'gbatch_server_reserved_usd',
  serverRemaining: 'gbatch_server_budget_remaining_usd',
} as const;

/**
 * The label that names the job on series read from journals. Not `job`: Prometheus gives that label to the
 * scrape target (a scraped `job` becomes `exported_job`), as it does `instance`.
 */
export const JOB_LABEL = 'job_name';
