import AssetCodecs
import AssetLottie
import AssetLottieRender

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
    /// rendered off Swift's cooperative pool on the threads that parse.
    /// - Throws: `LottieRenderError`.
    public func frame(
        of animation: LottieAnimation, at time: LottieFrameTime, size: LottieFrameSize = .natural
    ) async throws -> Bitmap {
        let renderer = self.renderer
        let body: @Sendable () throws -> Bitmap = { try renderer.render(animation, at: time, size: size) }
        if let pool = configuration.parsePool {
            return try await pool.runIfActive(body)
        }
        return try await manager.runIO(body)
    }

    /// Frames this util has asked rlottie for (refusals, by our parser or the renderer's checks,
    /// ask for none).
    public var renderCount: Int { renderer.renderCount }
}
