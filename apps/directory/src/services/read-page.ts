/**
 * The dataset statuses the stored reads answer with: the page status of resources whose status
 * enum has no `stale` (old data is `available`; publishedAt tells its age) and the status of a
 * single stored row. Pages themselves are decided by the read frame (service-kit `readFrame`,
 * decision 0028) over bodies PostgreSQL renders.
 */
import type { DatasetStatusV1 } from '@switchyard/messaging';

export const pageStatus = (s: DatasetStatusV1): DatasetStatusV1 => (s.status === 'stale' ? { ...s, status: 'available' } : s);

/** The status of one stored row read by id: never `pending` — a stored row means a committed batch. */
export const resultStatus = (s: DatasetStatusV1): DatasetStatusV1 => (s.status === 'pending' ? { ...s, status: 'available' } : s);
