import AssetImaging
import AssetStorage
import AssetVideoFrames
import Foundation

extension VideoStoryboards {
    /// Decodes the tiles through the chunk store and encodes the sheet, in a turn of the image
    /// util's transform queue. Nothing is stored here.
    func make(_ request: VideoStoryboardRequest) async throws -> VideoStoryboard {
        let (images, quality) = (self.images, configuration.quality)
        return try await images.variants.queue.run {
            let sheet = try await self.sheet(of: request)
            let encoded = try await images.decodeBudget.withReservation(of: sheet.bitmap.pixels.count * 2) {
                try await images.runDecoding {
                    images.transforms.add(1, ordering: .relaxed)
                    var options = ImageEncoder.Options(quality: quality)
                    options.maxOutputBytes = images.configuration.processor.maxOutputBytes
                    return try ImageEncoder().encode(sheet.bitmap, as: request.format, options: options)
                }
            }
            return VideoStoryboard(
                sprite: Data(encoded), format: request.format, width: sheet.bitmap.width, height: sheet.bitmap.height,
                tileWidth: sheet.tileWidth, tileHeight: sheet.tileHeight, columns: sheet.columns, interval: request.spec.interval,
                duration: sheet.duration, times: sheet.times, key: request.key, origin: .transformed)
        }
    }

    /// The tiles, decoded in a worker of the video util's frame workers, or on a thread of its own.
    private func sheet(of request: VideoStoryboardRequest) async throws -> VideoTileSheet {
        let address = request.url
        let window = Int64(max(64 << 10, video.store.configuration.chunkSize))
        let first = try await video.read(address: address, byteRange: .bounded(0..<window))
        guard let total = first.statistics.totalLength else {
            throw VideoError(.invalidResponse, "the origin did not tell the video's length")
        }
        // one chunk a read: a tile needs its key frame's packet, not the chunks after it
        let reader = FrameSourceReader(util: video, address: address, window: window, size: total, first: first, maxRun: 1)
        var limits = configuration.limits
        limits.maxPixels = min(limits.maxPixels, video.configuration.frameDecoder.maxPixels)
        let spec = request.spec
        if let workers = video.configuration.frameWorkers {
            do {
                return try await VideoStoryboardJob.run(
                    on: workers, sourceSize: total, spec: spec, limits: limits
                ) { offset, count in reader.read(offset: offset, count: count) }
            } catch {
                if let failure = reader.failure { throw failure }
                throw error
            }
        }
        let decoder = VideoStoryboardDecoder(configuration: limits)
        let source = VideoFrameSource(size: total) { offset, count in reader.read(offset: offset, count: count) }
        let result: Result<VideoTileSheet, VideoFrameError> = await withCheckedContinuation { continuation in
            // the decode blocks on its reads: never on the cooperative pool, which serves them
            Thread {
                continuation.resume(returning: Result { () throws(VideoFrameError) -> VideoTileSheet in
                    try decoder.decode(source, spec: spec)
                })
            }.start()
        }
        switch result {
        case .success(let sheet): return sheet
        case .failure(let error):
            if error.code == .readFailed, let failure = reader.failure { throw failure }
            throw error
        }
    }

    /// The storyboard from the disk cache: its manifest and its sprite, both present and agreeing;
    /// nil otherwise.
    func stored(_ request: VideoStoryboardRequest) async throws -> VideoStoryboard? {
        let (disk, key) = (images.manager.diskCache, request.key)
        guard let (manifest, sprite, contentType) = try? await images.manager.runIO({ () -> (Data, Data, String)? in
            guard let manifest = try disk.data(forKey: key + Self.manifestSuffix), let metadata = try disk.metadata(forKey: key),
                let contentType = metadata.contentType, let sprite = try disk.data(forKey: key)
            else { return nil }
            return (manifest, sprite, contentType)
        }), let facts = VariantKey.parse(contentType: contentType),
            let stored = try? JSONDecoder().decode(StoredManifest.self, from: manifest),
            stored.count == stored.times.count, stored.count > 0, facts.format == request.format
        else { return nil }
        return VideoStoryboard(
            sprite: sprite, format: facts.format, width: facts.width, height: facts.height, tileWidth: stored.tileWidth,
            tileHeight: stored.tileHeight, columns: stored.columns, interval: request.spec.interval, duration: stored.duration,
            times: stored.times, key: key, origin: .disk)
    }

    /// Keeps a storyboard made now in the disk cache: the sprite, then its manifest (a refused
    /// store still answers: it is in memory).
    func keep(_ board: VideoStoryboard, of request: VideoStoryboardRequest) async {
        let (disk, key) = (images.manager.diskCache, request.key)
        let spriteInfo = DiskCache.EntryInfo(
            kind: .image, originalUrlString: request.url,
            contentType: VariantKey.contentType(of: board.format, width: board.width, height: board.height),
            lastModified: request.resource.lastModified)
        let manifestInfo = DiskCache.EntryInfo(
            kind: .raw, originalUrlString: request.url, contentType: "application/json", lastModified: request.resource.lastModified)
        let manifest = StoredManifest(
            tileWidth: board.tileWidth, tileHeight: board.tileHeight, columns: board.columns, count: board.count,
            duration: board.duration, times: board.times)
        guard let encoded = try? JSONEncoder().encode(manifest) else { return }
        try? await images.manager.runIO {
            _ = try disk.store(board.sprite, forKey: key, info: spriteInfo)
            _ = try disk.store(encoded, forKey: key + Self.manifestSuffix, info: manifestInfo)
        }
    }

    /// The suffix of the manifest's key.
    static let manifestSuffix = "\u{1F}manifest"

    /// What the disk cache keeps of a storyboard beside its sprite.
    struct StoredManifest: Codable {
        var tileWidth: Int
        var tileHeight: Int
        var columns: Int
        var count: Int
        var duration: Double
        var times: [Double]
    }
}
