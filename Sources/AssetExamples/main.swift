// Every Swift snippet of README.md, run in order against a demo origin on loopback:
//
//   assetpipe-examples BASE_URL WORK_DIR
//
// BASE_URL is `assetpipe-demo-origin Fixtures`'s address (scripts/examples starts it); WORK_DIR an
// empty directory for the caches. Each README block is the text between `// README: NAME` and
// `// README: end`, and Tests/AssetPipelineTests/ReadmeExamplesTests.swift fails when a block of
// README.md and its region here differ. The code between the regions provides what a block takes
// as given (the URLs, some bytes, a file) and checks what it did; any failed check exits 1.
import Foundation

guard CommandLine.arguments.count == 3, let base = URL(string: CommandLine.arguments[1]) else {
    FileHandle.standardError.write(Data("usage: assetpipe-examples BASE_URL WORK_DIR\n".utf8))
    exit(2)
}
let work = URL(fileURLWithPath: CommandLine.arguments[2], isDirectory: true)
var failures = 0

/// Records a failed check (and prints it); the run goes on to report every failure.
@MainActor func check(_ condition: Bool, _ what: String) {
    if condition {
        print("ok: \(what)")
    } else {
        failures += 1
        print("FAILED: \(what)")
    }
}

/// The bytes of `path` under the demo origin, read straight from Fixtures/ (the origin serves them).
func fixture(_ path: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: "Fixtures/" + path))
}

let cacheDirectory = work.appendingPathComponent("cache", isDirectory: true)
let imageURL = base.appendingPathComponent("png/pngsuite/basn6a08.png")
let animationURL = base.appendingPathComponent("lottie/lottie-spec/valid/ellipse.json")
let videoURL = base.appendingPathComponent("video/sample_with_increasing_timestamps_360p.mp4")

// README: load
import AssetPipeline
import AssetLoading

// cacheDirectory: a file URL, such as URL(fileURLWithPath: "/var/cache/assets")
// imageURL: the asset's URL, such as URL(string: "https://cdn.example.org/a.png")!
let manager = try await AssetsManager.open(configuration: .init(directory: cacheDirectory))
let response = try await manager.load(AssetRequest(url: imageURL, kind: .image))
print(response.outcome)                          // downloaded, revalidated, cached, stale
let again = try await manager.load(AssetRequest(url: imageURL, kind: .image))   // cached: no request
// README: end
check(response.outcome == .downloaded && response.status == 200, "load: the first load downloads")
check(again.outcome == .cached, "load: the second load is a cache hit")

// README: prefetch
let prefetcher = Prefetcher(manager: manager, configuration: .init(concurrency: 8, validate: true))
let summary = await prefetcher.run([PrefetchItem(url: imageURL, kind: .image), PrefetchItem(url: animationURL)]) { result in
    print(result.url, result.outcome, result.failure?.message ?? "")
}
print(summary.downloaded, summary.cached, summary.failed)
// README: end
check(summary.total == 2 && summary.failed == 0 && summary.cached == 1 && summary.downloaded == 1,
      "prefetch: two items, the image already cached, the animation downloaded")

let pngBytes = try fixture("png/pngsuite/basn3p08.png")
// README: storage
try await manager.writeData(pngBytes, forKey: "thumbnails/a.png", storageType: .hybrid(.image))
let stored = try await manager.readData(forKey: "thumbnails/a.png", storageType: .hybrid(.image))
// README: end
check(stored == pngBytes, "storage: the bytes written are read back")

// README: utils
import AssetPipeline
let images = ImageUtil(manager: manager)      // decodes off the cooperative pool, within a byte budget
let bitmap = try await images.image(for: imageURL, options: .init(maxDimension: 512))
let lottie = LottieUtil(manager: manager)
let animation = try await lottie.animation(for: animationURL)   // a dotLottie's default; document(for:) gives all
// README: end
check(bitmap.width == 32 && bitmap.height == 32, "utils: basn6a08.png is 32x32")
check(animation.layerCount > 0, "utils: the animation has layers")

let imageBytes = try fixture("jpeg/libjpeg-turbo/testorig.jpg")
let lottieBytes = try fixture("lottie/lottie-spec/valid/ellipse.json")
let outputPath = work.appendingPathComponent("band.ppm").path
guard FileManager.default.createFile(atPath: outputPath, contents: nil) else { fatalError("cannot create \(outputPath)") }
let file = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
// README: codecs
import AssetCodecs
let decoded = try ImageDecoder(configuration: .init(pixelBudget: 50_000_000, maxDimension: 1024)).decode(imageBytes)
// decoded.bitmap: RGBA8, straight alpha; decoded.warnings; decoded.header (format, bitDepth, frameCount,
// hasAlpha, orientation, cicp); CodecError .corrupt/.truncated/.unsupported/.tooLarge/.noSuchPage

// Or a band of rows at a time, written as PAM, PPM or raw RGBA without the whole bitmap in memory:
let reader = try ImageDecoder().rowReader(for: imageBytes, layout: PixelFileFormat.ppm.layout)
try PixelFileFormat.ppm.write(reader) { band in try file.write(contentsOf: band) }

import AssetLottie
let document = try LottieDocumentReader().read(lottieBytes)   // JSON, .lottie (zip) or .tgs (gzip), sniffed
let checked = try LottieParser(configuration: .strict).parse(lottieBytes)   // or LottieError.validationFailed, .problems
// README: end
try file.close()
check(decoded.bitmap.width == 227 && decoded.bitmap.height == 149, "codecs: testorig.jpg is 227x149")
let ppm = try Data(contentsOf: URL(fileURLWithPath: outputPath))
check(ppm.count == "P6\n227 149\n255\n".utf8.count + 227 * 149 * 3, "codecs: the PPM holds every row")
check(document.animations.count == 1 && checked.layerCount == document.animations[0].animation.layerCount,
      "codecs: the document and the strict parse agree")

let photoURL = base.appendingPathComponent("jpeg/libjpeg-turbo/testorig.jpg")
// README: variants
import AssetImaging
let cover = ImageTransform(width: 128, height: 128, fit: .cover, gravity: .attention, format: .format(.webp))
let thumbnail = try await images.variant(for: photoURL, transform: cover)      // cached in memory and on disk
print(thumbnail.mediaType, thumbnail.width, thumbnail.height, thumbnail.data.count)   // image/webp 128 128 ...
let negotiated = try await images.variant(
    for: photoURL, transform: try ImageTransform(parsing: "w=100,q=70"), accepting: [.avif, .webp, .jpeg])   // AVIF
let local = try ImageProcessor().process(imageBytes, transform: ImageTransform(width: 64, format: .format(.png)))
// README: end
check(thumbnail.format == .webp && thumbnail.width == 128 && thumbnail.height == 128, "variants: a 128x128 WebP cover crop")
check(negotiated.format == .avif && negotiated.width == 100 && negotiated.height == 66, "variants: auto picks AVIF from the list")
check(local.format == .png && local.width == 64 && local.height == 42, "variants: bytes already here")

var sent = 0
@MainActor func send(_ piece: Data) { sent += piece.count }
// README: video
import AssetVideoFrames

let video = VideoUtil(manager: manager)        // 1 MiB chunks in <cache>/chunks, a 1 GiB budget (LRU)
let head = try await video.data(for: videoURL, range: 0..<65_536)        // also `start...` and `lastBytes:`
for try await piece in video.stream(for: videoURL, range: .from(1 << 20)) { send(piece) }   // bounded memory
try await video.prefetch(for: videoURL, head: 1 << 20, tail: 1 << 20)    // an MP4's moov is at one end
let poster = try await video.frame(for: videoURL, at: .progress(0.5), size: VideoFrameSize(width: 320))   // a still frame
try await manager.shutdown()                   // when done: flushes the disk cache's access records
// README: end
let videoBytes = try fixture("video/sample_with_increasing_timestamps_360p.mp4")
check(head == videoBytes.prefix(65_536), "video: the first 64 KiB")
check(sent == videoBytes.count - (1 << 20), "video: the stream from 1 MiB to the end")
check(poster.bitmap.width == 320 && poster.bitmap.height == 180 && poster.time > 8, "video: the frame at 50%, 320 wide")

let data = Data("a value worth keeping".utf8)
// README: memory
import AssetStorage

let cache = MemoryCache<String, Data>(policy: CachePolicy(maxAge: 600, maxSize: 64 << 20, maxCount: 10_000, evictionPolicy: .lru))
cache.set(data, forKey: "k", cost: data.count)
let hit = cache.value(forKey: "k")
cache.trim(toCost: 16 << 20)        // under memory pressure
print(cache.statistics.hitRate)
// README: end
check(hit == data, "memory: the value is a hit")

struct Feed: Codable, Equatable { var items: [String] }
let diskDirectory = work.appendingPathComponent("disk", isDirectory: true)
let apiResponse = Feed(items: ["a", "b"])
// README: disk
let disk = try DiskCache(configuration: .init(directory: diskDirectory, maxBytes: 1 << 30, maxAge: 7 * 86_400))
try disk.store(imageBytes, forKey: imageURL.absoluteString, info: .init(kind: .image, contentType: "image/jpeg"))
let entry = try disk.data(forKey: imageURL.absoluteString)      // nil unless whole and matching its checksum
try disk.storeValue(apiResponse, forKey: "api/v1/feed")   // Codable values as JSON
// README: end
check(entry == imageBytes, "disk: the entry is read back whole")
check(try disk.value(Feed.self, forKey: "api/v1/feed") == apiResponse, "disk: the Codable value is read back")

if failures > 0 {
    print("\(failures) check(s) failed")
    exit(1)
}
print("every README example ran")
