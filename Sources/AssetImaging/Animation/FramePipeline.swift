import AssetCodecs
import Foundation
import Synchronization

/// Makes an animation's frames (decode, composite, resize) on a thread of its own while the caller
/// encodes them, so that one animation uses two cores: encoding (libwebp, our quantizer) and
/// decoding overlap, as ``BandPipeline`` overlaps a large JPEG's decode with its resize.
///
/// - **Bounded**: at most `depth` frames are made and not yet encoded; the maker waits beyond.
/// - **Failures**: the maker's error reaches the caller after the frames before it. When the caller
///   stops early (its own error), ``run(_:)`` stops the maker and waits for it, so that no thread
///   outlives the call.
final class FramePipeline: @unchecked Sendable {
    /// The next frame and its duration, or nil after the last. Called on the maker thread only.
    private let make: () throws -> (Bitmap, Int)?
    private let free: DispatchSemaphore
    private let filled = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let queue = Mutex<[Result<(Bitmap, Int)?, any Error>]>([])
    private let stopped = Atomic<Bool>(false)
    /// Maker threads started by every pipeline of the process (what the tests check the threaded
    /// path by).
    static let threadsStarted = Atomic<Int>(0)

    /// A pipeline of `depth` frames in flight over `make`.
    init(depth: Int = 2, make: @escaping () throws -> (Bitmap, Int)?) {
        self.make = make
        // made at 0 and raised: libdispatch traps when a semaphore is freed below the value it was
        // made with, which `free` is after the caller stopped early (an encoder's error)
        self.free = DispatchSemaphore(value: 0)
        for _ in 0..<max(1, depth) { free.signal() }
    }

    /// Runs the maker thread and hands each frame to `consume` on the calling thread, in order,
    /// until the last. Rethrows the maker's or `consume`'s error.
    func run(_ consume: (Bitmap, Int) throws -> Void) throws {
        Self.threadsStarted.add(1, ordering: .relaxed)
        let thread = Thread { [self] in makeFrames() }
        thread.stackSize = 1 << 20
        thread.start()
        defer {
            stopped.store(true, ordering: .releasing)
            free.signal()  // a maker waiting for room wakes up and sees the stop
            finished.wait()
        }
        while true {
            filled.wait()
            let next = queue.withLock { $0.removeFirst() }
            switch next {
            case .failure(let error):
                throw error
            case .success(nil):
                return
            case .success(let frame?):
                free.signal()
                try consume(frame.0, frame.1)
            }
        }
    }

    private func makeFrames() {
        defer { finished.signal() }
        while true {
            free.wait()
            if stopped.load(ordering: .acquiring) { return }
            let result: Result<(Bitmap, Int)?, any Error>
            do {
                result = .success(try make())
            } catch {
                result = .failure(error)
            }
            queue.withLock { $0.append(result) }
            filled.signal()
            if case .success(let frame) = result, frame != nil { continue }
            return
        }
    }
}
