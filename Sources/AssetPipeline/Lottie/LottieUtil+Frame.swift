import AssetCodecs
import AssetLottie
import AssetLottieRender
import AssetWorkers

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension LottieUtil {
    /// One frame of the animation at `url`, rendered with rlottie as straight-alpha RGBA.
    ///
    /// The animation comes as ``animation(for:options:)`` gives it (memory, else the loader and
    /// our parser, within this util's limits): for a dotLottie, its default animation, with the
    /// images the archive holds. The renderer's checks (``Configuration/renderer``) run next;
    /// rlottie only ever sees what passed both. The frame itself is not cached.
    ///
    /// ```swift
    /// let poster = try await lottie.frame(for: url, at: .progress(0.5), size: LottieFrameSize(width: 320))
    /// print(poster.width, poster.height)
    /// ```
    /// - Throws: `LottieError` and `LoaderError` as ``animation(for:options:)`` does, then
    ///   `LottieRenderError` (`invalidSize`, `sizeTooLarge`, `frameOutOfRange`, `unsupported`,
    ///   `renderFailed`).
    public func frame(
        for url: URL, at time: LottieFrameTime, size: LottieFrameSize = .natural, options: Options = Options()
    ) async throws -> Bitmap {
        let animation = try await animation(for: url, options: options)
        return try await frame(of: animation, at: time, size: size)
    }

    /// One frame of an animation already here (any entry of a dotLottie's document, say),
    /// rendered off Swift's cooperative pool on the threads that parse, or in a worker process
    /// (``Configuration/renderWorkers``).
    /// - Throws: `LottieRenderError`; `renderFailed` also when the worker crashed, ran past its
    ///   time or could not be started.
    public func frame(
        of animation: LottieAnimation, at time: LottieFrameTime, size: LottieFrameSize = .natural
    ) async throws -> Bitmap {
        let renderer = self.renderer
        if let workers = configuration.renderWorkers {
            return try await frameInWorker(animation, at: time, size: size, workers: workers)
        }
        let body: @Sendable () throws -> Bitmap = { try renderer.render(animation, at: time, size: size) }
        if let pool = configuration.parsePool {
            return try await pool.runIfActive(body)
        }
        return try await manager.runIO(body)
    }

    /// One frame of an animation ``LottieFrameRenderer/prepare(_:)`` prepared (the frames of one
    /// animation prepare it once), rendered as ``frame(of:at:size:)`` renders.
    func frame(ofPrepared input: LottieRenderInput, at time: LottieFrameTime, size: LottieFrameSize) async throws -> Bitmap {
        let renderer = self.renderer
        if let workers = configuration.renderWorkers {
            let limits = configuration.renderer
            let payload = try await manager.runIO { () throws -> [UInt8] in
                try renderer.check(input, at: time, size: size)
                return LottieFrameJob.request(input, at: time, size: size, limits: limits)
            }
            return try await renderInWorker(payload, workers: workers)
        }
        let body: @Sendable () throws -> Bitmap = { try renderer.render(input, at: time, size: size) }
        if let pool = configuration.parsePool {
            return try await pool.runIfActive(body)
        }
        return try await manager.runIO(body)
    }

    /// The frame rendered by a worker: prepared and checked here, rendered there.
    private func frameInWorker(
        _ animation: LottieAnimation, at time: LottieFrameTime, size: LottieFrameSize, workers: WorkerPool
    ) async throws -> Bitmap {
        let renderer = self.renderer
        let limits = configuration.renderer
        let request: @Sendable () throws -> [UInt8] = {
            let input = try renderer.prepare(animation)
            try renderer.check(input, at: time, size: size)
            return LottieFrameJob.request(input, at: time, size: size, limits: limits)
        }
        let payload: [UInt8]
        if let pool = configuration.parsePool {
            payload = try await pool.runIfActive(request)
        } else {
            payload = try await manager.runIO(request)
        }
        return try await renderInWorker(payload, workers: workers)
    }

    /// A frame job's reply, with a worker's failure as a `LottieRenderError`.
    private func renderInWorker(_ payload: [UInt8], workers: WorkerPool) async throws -> Bitmap {
        do {
            return try LottieFrameJob.bitmap(fromReply: try await workers.run(LottieFrameJob.name, payload: payload))
        } catch let error as WorkerError {
            if let failure = error.failure { throw LottieRenderError(workerFailure: failure) }
            throw LottieRenderError(workerFailure: WorkerFailure(code: "renderFailed", message: "the render worker \(error)"))
        }
    }

    /// Frames this util has asked rlottie for (refusals, by our parser or the renderer's checks,
    /// ask for none).
    public var renderCount: Int { renderer.renderCount }
}
