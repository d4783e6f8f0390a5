#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// An image decoded a band of rows at a time, for writing it out (to a file, into a response)
/// without holding the whole bitmap.
///
/// - **Memory**: a JPEG (full size, or DCT-scaled to exactly the target size) and a non-interlaced
///   PNG decode straight into the caller's buffer; the reader holds the input and the library's
///   working state, not the image. An interlaced PNG (Adam7 finishes no row before the last pass)
///   and an image that `maxDimension` resizes are decoded whole first, and rows are copied out of
///   that bitmap.
/// - **Pixels**: those of ``ImageDecoder/decode(_:)``, as RGBA or as RGB (the same values, alpha
///   dropped).
/// - **Limits**: the header is read and checked against the decoder's configuration (input size,
///   pixel budget) when the reader is made, before any pixel memory is allocated.
/// - **Failures**: a read throws a `CodecError`; the reader is then failed, and every later read
///   throws the same error. The read that returns the last rows has also read the image's end
///   (EOI, the chunks up to IEND), so a fault there fails that read, as it fails a whole decode.
/// - **Threads**: reads are serialized by a lock; a reader may move between threads and tasks.
///
/// ```swift
/// let reader = try ImageDecoder().rowReader(for: data, layout: .rgb8)
/// var band = [UInt8](repeating: 0, count: reader.bytesPerRow * reader.bandRows(forBytes: 1 << 18))
/// while case let rows = try band.withUnsafeMutableBytes({ try reader.readRows(into: $0) }), rows > 0 { ... }
/// ```
public final class ImageRowReader: Sendable {
    /// How the pixels of a row are laid out.
    public enum Layout: Sendable, Hashable {
        /// 8-bit red, green, blue, alpha (straight alpha), as `Bitmap.PixelFormat.rgba8`.
        case rgba8
        /// 8-bit red, green, blue: the RGBA values with alpha dropped (not composited).
        case rgb8

        /// Bytes per pixel.
        public var bytesPerPixel: Int {
            switch self {
            case .rgba8: 4
            case .rgb8: 3
            }
        }
    }

    /// Where rows come from.
    enum Source: Sendable {
        /// The C decoder, row by row.
        case streamed(RowDecoderHandle)
        /// A bitmap decoded whole (RGBA rows of `width * 4` bytes).
        case whole([UInt8])
        /// Nothing more: finished, failed, or released.
        case done
    }

    struct State: Sendable {
        var source: Source
        var nextRow = 0
        var log = WarningLog()
        var failure: CodecError?
    }

    /// The header the image was decoded from.
    public let header: ImageHeader
    /// Output width in pixels (after `maxDimension`).
    public let width: Int
    /// Output height in pixels (after `maxDimension`).
    public let height: Int
    /// How the rows are laid out: the `layout` given to ``ImageDecoder/rowReader(for:layout:)``.
    public let layout: Layout
    /// Whether rows come straight from the library (true) or from a bitmap decoded whole first.
    public let isStreamed: Bool

    private let input: any ContiguousBytes & Sendable
    private let format: ImageFormat
    private let state: Mutex<State>

    init(
        input: any ContiguousBytes & Sendable, header: ImageHeader, width: Int, height: Int, layout: Layout,
        source: Source, log: WarningLog
    ) {
        self.input = input
        self.header = header
        self.format = header.format
        self.width = width
        self.height = height
        self.layout = layout
        if case .streamed = source { isStreamed = true } else { isStreamed = false }
        self.state = Mutex(State(source: source, log: log))
    }

    deinit {
        state.withLock { state in
            if case .streamed(let handle) = state.source { handle.destroy() }
            state.source = .done
        }
    }

    /// Bytes of one output row: `width * layout.bytesPerPixel`.
    public var bytesPerRow: Int { width * layout.bytesPerPixel }

    /// Rows handed out so far.
    public var rowsRead: Int { state.withLock { $0.nextRow } }

    /// Whether every row has been read (and the image's end checked).
    public var isComplete: Bool { state.withLock { $0.nextRow == height && $0.failure == nil } }

    /// What the library reported so far (complete once every row has been read); see
    /// `DecodedImage.warnings`.
    public var warnings: [String] { state.withLock { $0.log.messages } }

    /// Rows per band of about `bytes` bytes: at least one, and a multiple of 16 (whole iMCU rows
    /// of a JPEG, which libjpeg-turbo decodes most cheaply) when 16 rows fit.
    public func bandRows(forBytes bytes: Int) -> Int {
        let rows = max(1, bytes / max(1, bytesPerRow))
        return rows >= 16 ? rows / 16 * 16 : rows
    }

    /// Decodes the next rows into `destination`: as many whole rows of ``bytesPerRow`` bytes as
    /// fit, and no more than remain. Returns how many rows were written; 0 once every row has been
    /// read.
    /// - Throws: `CodecError` (`.bufferTooSmall` when not one row fits).
    public func readRows(into destination: UnsafeMutableRawBufferPointer) throws -> Int {
        try state.withLock { state in
            if let failure = state.failure { throw failure }
            let remaining = height - state.nextRow
            guard remaining > 0 else { return 0 }
            let count = min(remaining, destination.count / bytesPerRow)
            guard count > 0 else {
                throw CodecError.bufferTooSmall("a row of \(bytesPerRow) bytes does not fit \(destination.count) bytes")
            }
            do {
                try read(count, into: destination, state: &state)
            } catch let error as CodecError {
                release(&state)
                state.failure = error
                throw error
            }
            if state.nextRow == height { release(&state) }
            return count
        }
    }

    private func read(_ count: Int, into destination: UnsafeMutableRawBufferPointer, state: inout State) throws {
        switch state.source {
        case .streamed(let handle):
            try input.withUnsafeBytes { bytes in
                let read = try handle.read(
                    bytes: bytes, into: destination, bytesPerRow: bytesPerRow, maxRows: count, log: &state.log)
                guard read == count else { throw CodecError.corrupt("the decoder returned \(read) of \(count) rows") }
                state.nextRow += count
                if state.nextRow == height { try handle.finish(bytes: bytes, log: &state.log) }
            }
        case .whole(let pixels):
            pixels.withUnsafeBytes { source in
                let sourceRow = width * 4
                for row in 0..<count {
                    let from = source.baseAddress! + (state.nextRow + row) * sourceRow
                    let to = destination.baseAddress! + row * bytesPerRow
                    if layout == .rgba8 {
                        to.copyMemory(from: from, byteCount: sourceRow)
                    } else {
                        PixelRows.dropAlpha(from: from, to: to, pixels: width)
                    }
                }
            }
            state.nextRow += count
        case .done:
            throw CodecError.corrupt("the reader has no more rows")
        }
    }

    /// Frees the C decoder or the whole bitmap as soon as they are no longer needed.
    private func release(_ state: inout State) {
        if case .streamed(let handle) = state.source { handle.destroy() }
        state.source = .done
    }
}
