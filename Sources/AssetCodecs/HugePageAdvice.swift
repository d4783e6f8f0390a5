#if canImport(Glibc)
import Glibc
#endif

/// Asks the kernel to back the 2 MiB-aligned interior of a large, freshly allocated buffer with
/// transparent huge pages. A multi-megabyte bitmap is a fresh `mmap` from malloc, and touching it
/// page by page costs one fault per 4 KiB (about a third of a 12 MP JPEG decode); with huge pages
/// it is one per 2 MiB. Only advice: where THP is off, nothing changes.
enum HugePageAdvice {
    static let threshold = 4 << 20
    static let hugePage = 2 << 20

    static func advise(_ buffer: UnsafeMutableRawBufferPointer) {
        #if os(Linux)
        guard buffer.count >= threshold, let base = buffer.baseAddress else { return }
        let start = (UInt(bitPattern: base) + UInt(hugePage - 1)) & ~UInt(hugePage - 1)
        let end = (UInt(bitPattern: base) + UInt(buffer.count)) & ~UInt(hugePage - 1)
        guard end > start, let pointer = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(pointer, Int(end - start), MADV_HUGEPAGE)
        #endif
    }
}
