import Foundation
import Testing
import ZIPFoundation
@testable import AssetLottie

/// dotLottie (v1 and v2), gzip stickers, sniffing by bytes, junk, zip-slip and bombs.
struct ContainerTests {
    let reader = LottieDocumentReader()
    static let tiny = #"{"v":"5.7.4","fr":30,"ip":0,"op":60,"w":64,"h":64,"assets":[{"id":"image_0","w":1,"h":1,"u":"/i/","p":"pixel.png","e":0}],"layers":[{"ty":2,"ind":1,"refId":"image_0"}]}"#
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0]

    /// A zip archive built in memory from (path, bytes) pairs.
    static func zip(_ files: [(String, [UInt8])], compression: CompressionMethod = .deflate) throws -> Data {
        let archive = try Archive(data: Data(), accessMode: .create)
        for (path, bytes) in files {
            let data = Data(bytes)
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count),
                                 compressionMethod: compression) { position, size in
                data.subdata(in: Int(position)..<min(data.count, Int(position) + size))
            }
        }
        return try #require(archive.data)
    }

    @Test func sniffsByBytesNotByName() throws {
        #expect(LottieContainerFormat.sniff(try Fixtures.data("lottie-android/Heart.lottie")) == .json)
        #expect(LottieContainerFormat.sniff(try Fixtures.data("lottie-android/winners.tgs")) == .gzip)
        #expect(LottieContainerFormat.sniff(try Fixtures.data("lottie-ios/DotLottie/confused.lottie")) == .zip)
        #expect(LottieContainerFormat.sniff(try Fixtures.data("lottie-ios/DotLotExtension/Switch.lot")) == .json)
        #expect(LottieContainerFormat.sniff([UInt8]()) == .json)
        let heart = try reader.read(contentsOfFile: Fixtures.url("lottie-android/Heart.lottie").path)
        #expect(heart.format == .json && !heart.isDotLottie && heart.animations.count == 1)
    }

    @Test func severalAnimationsWithMacJunk() throws {
        let document = try reader.read(contentsOfFile: Fixtures.url("lottie-ios/DotLottie/multiple_animations.lottie").path)
        #expect(document.isDotLottie)
        #expect(document.manifest?.version == "1.0")
        #expect(document.animations.map(\.id) == ["0", "1", "2"])
        #expect(document.manifest?.animations[1].extra["speed"] == .int(2))
    }

    @Test func archiveImagesAreEmbedded() throws {
        let document = try reader.read(contentsOfFile: Fixtures.url("lottie-ios/DotLottie/animation_external_image.lottie").path)
        let animation = try #require(document.animations.first?.animation)
        guard case .image(let image)? = animation.assets?.first(where: { if case .image = $0 { true } else { false } }),
              case .embedded(let type, let data) = image.source else {
            Issue.record("image not embedded")
            return
        }
        #expect(type == "image/png")
        #expect(data.count == 582_707)
    }

    @Test func version2ArchiveFromMemory() throws {
        let manifest = #"{"version":"2","generator":"test","animations":[{"id":"b"},{"id":"a"}]}"#
        let data = try Self.zip([
            ("manifest.json", Array(manifest.utf8)),
            ("a/a.json", Array(Self.tiny.utf8)),
            ("a/b.json", Array(Self.tiny.replacingOccurrences(of: "\"w\":64", with: "\"w\":32").utf8)),
            ("i/pixel.png", Self.png),
            ("__MACOSX/a/._a.json", [0, 1, 2]),
            ("a/.DS_Store", [0, 1, 2]),
        ])
        let document = try reader.read(data)
        #expect(document.manifest?.isVersion2 == true)
        #expect(document.animations.map(\.id) == ["b", "a"])
        #expect(document.animations.map(\.animation.width) == [32, 64])
        guard case .image(let image)? = document.animations[1].animation.assets?.first else { Issue.record("no image"); return }
        #expect(image.source == .embedded(mediaType: "image/png", data: Data(Self.png)))
        #expect(image.embedded == 1)
    }

    @Test func archiveWithoutManifestUsesTheFolder() throws {
        let data = try Self.zip([("animations/x.json", Array(Self.tiny.utf8)), ("images/pixel.png", Self.png)],
                                compression: .none)
        let document = try reader.read(data)
        #expect(document.manifest == nil)
        #expect(document.animations.map(\.id) == ["x"])
    }

    @Test func pathsThatEscapeAreIgnored() throws {
        let manifest = #"{"version":"1","animations":[{"id":"x"}]}"#
        let data = try Self.zip([
            ("manifest.json", Array(manifest.utf8)),
            ("../animations/x.json", Array(Self.tiny.utf8)),
            ("/animations/x.json", Array(Self.tiny.utf8)),
            ("animations/../../animations/x.json", Array(Self.tiny.utf8)),
        ])
        #expect(throws: LottieError.animationNotFound) { try reader.read(data) }
        #expect(DotLottieEntries.normalize("../a") == nil)
        #expect(DotLottieEntries.normalize("a/../../b") == nil)
        #expect(DotLottieEntries.normalize("/etc/passwd") == nil)
        #expect(DotLottieEntries.normalize("a\\..\\b") == nil)
        #expect(DotLottieEntries.normalize("./images//x.png") == "images/x.png")
    }

    @Test func decompressionIsBounded() throws {
        var configuration = LottieDocumentReader.Configuration()
        configuration.maxDecompressedBytes = 1 << 20
        let bounded = LottieDocumentReader(configuration: configuration)
        // 4 MiB of spaces after a tiny animation: compresses to a few KiB.
        let padded = Array(Self.tiny.utf8) + [UInt8](repeating: 0x20, count: 4 << 20)
        let archive = try Self.zip([("animations/x.json", padded)])
        #expect(archive.count < 100_000)
        #expect(throws: LottieError.decompressedTooLarge) { try bounded.read(archive) }
        let gzip = try Self.gzip(padded)
        #expect(throws: LottieError.decompressedTooLarge) { try bounded.read(gzip) }
        // Within the default bounds both are fine.
        #expect(try reader.read(archive).animations.count == 1)
        #expect(try reader.read(gzip).animations.first?.animation.width == 64)
    }

    @Test func telegramStickerIsGzip() throws {
        let document = try reader.read(contentsOfFile: Fixtures.url("lottie-android/winners.tgs").path)
        #expect(document.format == .gzip)
        #expect(document.animations.first?.animation.layerCount == 40)
    }

    @Test func brokenGzipIsATypedError() throws {
        let good = [UInt8](try Fixtures.data("lottie-android/winners.tgs"))
        for length in [2, 10, 20, good.count / 2, good.count - 4] {
            #expect(throws: LottieError.self, "\(length)") { try reader.read(Data(good.prefix(length))) }
        }
        var flipped = good
        flipped[good.count - 6] ^= 0xFF
        #expect(throws: LottieError.invalidCompressedData) { try reader.read(Data(flipped)) }
    }

    /// A deflate stream patched into a stored block that runs past the archive's end: ZIPFoundation's
    /// own extract loops forever on this 300-byte file; ours reports it.
    @Test func corruptDeflateStreamIsAnErrorNotAHang() throws {
        let manifest = #"{"version":"1","animations":[{"id":"x"}]}"#
        var bytes = [UInt8](try Self.zip([("manifest.json", Array(manifest.utf8)),
                                          ("animations/x.json", Array((Self.tiny + String(repeating: " ", count: 2_000)).utf8))]))
        let name = Array("animations/x.json".utf8)
        let nameAt = try #require((0...(bytes.count - name.count)).first { Array(bytes[$0..<($0 + name.count)]) == name })
        let extraLength = Int(bytes[nameAt - 2]) | Int(bytes[nameAt - 1]) << 8
        let dataAt = nameAt + name.count + extraLength
        bytes.replaceSubrange(dataAt..<(dataAt + 5), with: [0x00, 0xFF, 0xFF, 0x00, 0x00])
        #expect(throws: LottieError.invalidCompressedData) { try reader.read(Data(bytes)) }
    }

    /// Truncations and random byte flips of a small archive: each read returns or throws.
    @Test func damagedArchivesNeverHangOrCrash() throws {
        let manifest = #"{"version":"1","animations":[{"id":"x"}]}"#
        let good = [UInt8](try Self.zip([("manifest.json", Array(manifest.utf8)), ("animations/x.json", Array(Self.tiny.utf8)),
                                         ("images/pixel.png", Self.png)]))
        var outcomes = (ok: 0, failed: 0)
        for length in stride(from: 0, to: good.count, by: 7) {
            if (try? reader.read(Data(good.prefix(length)))) != nil { outcomes.ok += 1 } else { outcomes.failed += 1 }
        }
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<1_000 {
            var damaged = good
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if (try? reader.read(Data(damaged))) != nil { outcomes.ok += 1 } else { outcomes.failed += 1 }
        }
        #expect(outcomes.failed > 0)
        #expect(outcomes.ok + outcomes.failed == 1_000 + (good.count + 6) / 7)
    }

    @Test func notAZipAtAll() {
        #expect(throws: LottieError.invalidArchive) { try reader.read(Data([0x50, 0x4B, 0x03, 0x04, 1, 2, 3])) }
    }

    /// A gzip member (stored deflate blocks would do; ZIPFoundation's compressor gives raw deflate).
    static func gzip(_ bytes: [UInt8]) throws -> Data {
        let input = Data(bytes)
        var deflated = Data()
        let crc = try Data.compress(size: Int64(input.count), bufferSize: 64 << 10, provider: { position, size in
            input.subdata(in: Int(position)..<min(input.count, Int(position) + size))
        }, consumer: { deflated.append($0) })
        var output = Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3])
        output.append(deflated)
        for value in [crc, UInt32(truncatingIfNeeded: input.count)] {
            output.append(contentsOf: [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)])
        }
        return output
    }
}
