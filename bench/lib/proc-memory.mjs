/**
 * Peak memory of a child process from Linux's /proc: `VmHWM` ("high water mark", the peak resident
 * set) in /proc/<pid>/status, which writing `5` to /proc/<pid>/clear_refs resets — so a job round
 * can report the peak reached *during* the round, not at start-up (migrations, JIT). Where /proc is
 * missing or not writable the functions answer null/false, and callers fall back to
 * `process.resourceUsage().maxRSS` (peak since start, over IPC).
 */
import { readFileSync, writeFileSync } from 'node:fs';

/** `VmHWM` of a /proc status text in KiB, or null when absent. Pure. */
export function parseVmHwmKiB(statusText) {
  const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(statusText);
  return match ? Number(match[1]) : null;
}

/** The process's peak RSS in KiB since start or the last reset; null when /proc cannot tell. */
export function readPeakKiB(pid) {
  try {
    return parseVmHwmKiB(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return null;
  }
}

/** Resets the process's peak RSS to its current RSS; false when /proc does not allow it. */
export function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
