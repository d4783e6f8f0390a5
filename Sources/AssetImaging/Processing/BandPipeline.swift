import AssetCodecs
import Foundation
import Synchronization

/// Decodes the bands of an ``ImageRowReader`` on a thread of its own while the caller consumes
/// them, so that decoding (libjpeg's entropy decoding, the larger part of a large JPEG's cost)
/// and resampling overlap on two cores: one image's latency drops towards its decode time.
///
/// - **Bounded**: `depth` band buffers circulate; the decoder waits when all are full, the caller
///   when none is.
/// - **Failures**: a decode error reaches the caller in order, after the bands before it. When the
///   caller stops early (its own error), ``run(_:)`` tells the decoder to stop and waits for it, so
///   that no thread outlives the call or touches a freed buffer.
final class BandPipeline: @unchecked Sendable {
    private let reader: ImageRowReader
    private let buffers: [UnsafeMutableRawBufferPointer]
    private let free: DispatchSemaphore
    private let filled = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// Bands decoded and not yet consumed, in order: (buffer, rows), rows 0 at the end; or an error.
    private let queue = Mutex<[Result<(Int, Int), CodecError>]>([])
    private let stopped = Atomic<Bool>(false)
    /// Decoding threads started by every pipeline of the process (what the tests check the
    /// threaded path by).
    static let threadsStarted = Atomic<Int>(0)

    /// Prepares `depth` buffers of `bandRows` rows each.
    init(reader: ImageRowReader, bandRows: Int, depth: Int = 3) {
        self.reader = reader
        self.buffers = (0..<depth).map { _ in
            UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bandRows) * reader.bytesPerRow, alignment: 64)
        }
        self.free = DispatchSemaphore(value: depth)
    }

    deinit {
        for buffer in buffers { buffer.deallocate() }
    }

    /// Runs the decoder thread and hands each band to `consume` (its rows, the row count) on the
    /// calling thread, until the image ends. Rethrows the decoder's or `consume`'s error.
    func run(_ consume: (UnsafeMutableRawBufferPointer, Int) throws -> Void) throws {
        Self.threadsStarted.add(1, ordering: .relaxed)
        let thread = Thread { [self] in decode() }
        thread.stackSize = 1 << 20
        thread.start()
        defer {
            stopped.store(true, ordering: .releasing)
            free.signal()  // a decoder waiting for a buffer wakes up and sees the stop
            finished.wait()
        }
        while true {
            filled.wait()
            let next = queue.withLock { $0.removeFirst() }
            switch next {
            case .failure(let error):
                throw error
            case .success(let (index, rows)):
                if rows == 0 { return }
                try consume(buffers[index], rows)
                free.signal()
            }
        }
    }

    private func decode() {
        defer { finished.signal() }
        var index = 0
        while true {
            free.wait()
            if stopped.load(ordering: .acquiring) { return }
            let item: Result<(Int, Int), CodecError>
            do {
                item = .success((index, try reader.readRows(into: buffers[index])))
            } catch let error as CodecError {
                item = .failure(error)
            } catch {
                item = .failure(CodecError.corrupt)
            }
            queue.withLock { $0.append(item) }
            filled.signal()
            if case .success(let (_, rows)) = item, rows > 0 {
                index = (index + 1) % buffers.count
                continue
            }
            return
        }
    }
}
