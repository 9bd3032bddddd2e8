// Pads the start-up snapshot so that reading it costs a start a few page faults instead of about a
// thousand. Node reads the whole blob into one malloc'd buffer of the file's size. glibc serves a
// buffer that large with an mmap of its own (bin/agent fixes the mmap threshold at 128 KiB), of the
// request plus a 16-byte header rounded up to 4 KiB, and madvises it for transparent huge pages
// (bin/agent sets glibc.malloc.hugetlb=1). Linux (6.7 and later) places an anonymous mapping on a
// 2 MiB boundary only when its length is a multiple of 2 MiB; otherwise the huge pages cover only
// the aligned middle of the buffer and its ends fault in 4 KiB at a time. Node ignores what follows
// the snapshot's own data, so zeros at the end make the mapping exactly a multiple of 2 MiB.
// On another kernel, allocator or THP mode this only costs reading up to 2 MiB more.
import { statSync, truncateSync } from 'node:fs';

const HUGE_PAGE = 2 * 1024 * 1024;
const PAGE = 4096;

/** The padded size: glibc maps `size + 16` rounded up to a page, so `k * 2 MiB - 4 KiB` maps `k * 2 MiB`. */
export function alignedBlobSize(size) {
  return Math.ceil((size + PAGE) / HUGE_PAGE) * HUGE_PAGE - PAGE;
}

/** Pads the blob at `file` to alignedBlobSize (truncate extends a file with zeros). */
export function alignBlob(file) {
  const { size } = statSync(file);
  const padded = alignedBlobSize(size);
  if (padded !== size) truncateSync(file, padded);
}
