import AssetCodecs
import AssetImaging
import AssetWorkers
import NIOPosix

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ImageUtil {
    /// Limits and threads of an ``ImageUtil``.
    public struct Configuration: Sendable {
        /// Bytes that decodes in flight may hold together, estimated before each decode as its input
        /// plus its full-size RGBA pixels (plus the scaled output when `maxDimension` is set). A burst
        /// of large images waits here instead of exhausting memory; one image larger than the whole
        /// budget still decodes, alone. Default: 512 MiB.
        public var decodeBudget: Int
        /// Largest input accepted, in bytes. Default: 256 MiB (the decoder's own default).
        public var maxInputBytes: Int
        /// Threads that decode: a started pool the caller owns and stops, or nil for the manager's I/O
        /// threads. Either way decoding runs off Swift's cooperative pool. Default: nil.
        public var decodePool: NIOThreadPool?
        /// The limits and encoder speeds of variants (``ImageUtil/variant(for:transform:accepting:options:)``);
        /// its source pixel and input limits are replaced by the decode options' and this
        /// configuration's. Default: `ImageProcessor.Configuration()`.
        public var processor: ImageProcessor.Configuration
        /// Variant transforms that run at once (a disk or memory hit takes no turn). Default: the
        /// number of active processors.
        public var maxConcurrentTransforms: Int
        /// Variant transforms that may wait for a turn; one more fails at once with
        /// `ImagingError.overloaded`. Default: 64.
        public var maxQueuedTransforms: Int
        /// Called after each transform this util makes (not for memory or disk hits, nor for callers
        /// that joined a transform in flight), with the variant's format and the transform's time in
        /// seconds (a wait for a turn of the queue included): a service counts it in its metrics. Default nil.
        public var onTransform: (@Sendable (_ format: OutputFormat, _ seconds: Double) -> Void)?
        /// The version of what makes variants, part of every variant's key and `ETag`
        /// (``VariantKey``). Default: ``RendererVersion/current`` (this build and the libraries on
        /// this machine); set it only to share variants across builds you know render alike.
        public var rendererVersion: String
        /// Worker processes (`assetpipe worker`) that decode the formats of
        /// `ImageTransformJob.isolatedFormats` (HEIF, AVIF, TIFF, SVG, JPEG XL: the large C parsers
        /// of hostile input) for variants and decodes, so that a crash, a hang or a runaway
        /// allocation in libheif, libavif, libtiff, librsvg or libjxl ends a worker, never this
        /// process; such a failure is `ImagingError.decodeFailed`. PNG, JPEG, WebP and GIF decode
        /// in process. The pool belongs to the caller. Default: nil, every format in process.
        public var decodeWorkers: WorkerPool?
        /// A bucket of variants shared with other processes (``DerivedStore``): read on a local miss
        /// before transforming, written in the background after. Default nil.
        public var derivedStore: DerivedStore.Configuration?

        /// Creates a configuration; every parameter defaults to the value documented on its property.
        public init(
            decodeBudget: Int = 512 << 20, maxInputBytes: Int = 256 << 20, decodePool: NIOThreadPool? = nil,
            processor: ImageProcessor.Configuration = ImageProcessor.Configuration(),
            maxConcurrentTransforms: Int = ProcessInfo.processInfo.activeProcessorCount, maxQueuedTransforms: Int = 64
        ) {
            self.onTransform = nil
            self.decodeWorkers = nil
            self.rendererVersion = RendererVersion.current
            self.maxConcurrentTransforms = maxConcurrentTransforms
            self.maxQueuedTransforms = maxQueuedTransforms
            self.decodeBudget = decodeBudget
            self.maxInputBytes = maxInputBytes
            self.decodePool = decodePool
            self.processor = processor
        }
    }
}

extension ImageUtil.Configuration {
    /// The pool that decodes `data`: ``decodeWorkers`` when the bytes are of a format it isolates.
    func workers(for data: some Collection<UInt8>) -> WorkerPool? {
        guard let decodeWorkers, let format = ImageFormat(sniffing: data),
            ImageTransformJob.isolatedFormats.contains(format)
        else { return nil }
        return decodeWorkers
    }
}
