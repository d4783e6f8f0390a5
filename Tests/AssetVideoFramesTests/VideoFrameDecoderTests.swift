import AssetCodecs
import AssetTestSupport
import AssetVideoFrames
import Foundation
import Synchronization
import Testing

/// Frames of the corpus's videos decoded through positional reads, compared byte for byte with
/// what Debian's `ffmpeg` command gives for the same file, time and size.
@Suite(.serialized) struct VideoFrameDecoderTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/video")

    /// A source over a file's bytes that counts what was read.
    final class FileSource: Sendable {
        let bytes: [UInt8]
        let read = Mutex<(bytes: Int, calls: Int)>((0, 0))
        init(_ path: String) throws { bytes = [UInt8](try Data(contentsOf: root.appendingPathComponent(path))) }
        init(bytes: [UInt8]) { self.bytes = bytes }

        var source: VideoFrameSource {
            VideoFrameSource(size: Int64(bytes.count)) { [self] offset, count in
                let start = Int(offset), end = min(bytes.count, start + count)
                guard start <= end else { return nil }
                read.withLock { $0.bytes += end - start; $0.calls += 1 }
                return Array(bytes[start..<end])
            }
        }
    }

    /// `ffmpeg [-ss T] -i FILE -frames:v 1 [-vf scale=W:H] -f rawvideo -pix_fmt rgba -`'s bytes.
    static func ffmpeg(_ path: String, seconds: Double? = nil, scale: String? = nil) async throws -> [UInt8] {
        var arguments = ["-nostdin", "-v", "error", "-threads", "1"]
        if let seconds { arguments += ["-ss", String(seconds)] }
        arguments += ["-i", root.appendingPathComponent(path).path, "-frames:v", "1"]
        if let scale { arguments += ["-vf", "scale=\(scale)"] }
        arguments += ["-sws_flags", "bicubic", "-f", "rawvideo", "-pix_fmt", "rgba", "-"]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let bytes = await onOwnThread { output.fileHandleForReading.readDataToEndOfFile() }
        await onOwnThread { process.waitUntilExit() }
        #expect(process.terminationStatus == 0, "ffmpeg failed on \(path)")
        return [UInt8](bytes)
    }

    static let playable = [
        "frames/bbb_800x640_768kbps_30fps_avc_2b_firstpts_10_sec.mp4", "frames/h264_white_frame_sar_16_9.mp4",
        "frames/hevc_white_frame.mp4", "frames/tiny_av1.mp4", "frames/video_rotation_90.mp4", "frames/sample.mkv",
        "frames/sample_fragmented.mp4", "sample.mp4", "sample_with_increasing_timestamps_360p.mp4",
        "bbb_480p_vp9_opus_1second.webm",
    ]

    @Test(arguments: playable)
    func theFirstFrameIsFFmpegs(_ path: String) async throws {
        let file = try FileSource(path)
        let frame = try VideoFrameDecoder().decode(file.source)
        #expect(frame.bitmap.width > 0 && frame.bitmap.height > 0)
        let reference = try await Self.ffmpeg(path)
        #expect(frame.bitmap.pixels == reference, "\(path): \(frame.codec) \(frame.bitmap.width)x\(frame.bitmap.height)")
    }

    @Test(arguments: [
        // its first frame is at 10 s: a time counts from there, as ffmpeg's -ss does
        ("frames/bbb_800x640_768kbps_30fps_avc_2b_firstpts_10_sec.mp4", 2.0),
        ("frames/bbb_800x640_768kbps_30fps_avc_2b_firstpts_10_sec.mp4", 3.77),
        // one key frame at the start, fragments after: decoded from there
        ("frames/sample_fragmented.mp4", 0.5),
        ("sample_with_increasing_timestamps_360p.mp4", 1.5),
        ("frames/sample.mkv", 0.5),
        ("bbb_480p_vp9_opus_1second.webm", 0.6),
    ])
    func aFrameAtATimeIsFFmpegs(_ path: String, seconds: Double) async throws {
        let file = try FileSource(path)
        let frame = try VideoFrameDecoder().decode(file.source, at: .seconds(seconds))
        #expect(frame.time >= seconds - 0.0001)
        let reference = try await Self.ffmpeg(path, seconds: seconds)
        #expect(frame.bitmap.pixels == reference, "\(path) at \(seconds) s: frame at \(frame.time)")
    }

    @Test func aProgressIsATimeOfTheDuration() throws {
        let file = try FileSource("frames/bbb_800x640_768kbps_30fps_avc_2b_firstpts_10_sec.mp4")
        let half = try VideoFrameDecoder().decode(file.source, at: .progress(0.5))
        let duration = try #require(half.duration)
        let same = try VideoFrameDecoder().decode(file.source, at: .seconds(duration / 2))
        // the video's own 4 seconds (from 10 s), not the container's 14
        #expect(duration == 4)
        #expect(half.time == 2)
        let samePixels = half.bitmap.pixels == same.bitmap.pixels
        #expect(samePixels)
        let first = try VideoFrameDecoder().decode(file.source)
        let firstDiffers = first.bitmap.pixels != half.bitmap.pixels
        #expect(firstDiffers)
    }

    @Test func aSizeScalesAsFFmpegsScaleFilter() async throws {
        let path = "frames/bbb_800x640_768kbps_30fps_avc_2b_firstpts_10_sec.mp4"
        let file = try FileSource(path)
        let wide = try VideoFrameDecoder().decode(file.source, size: VideoFrameSize(width: 320))
        #expect(wide.bitmap.width == 320 && wide.bitmap.height == 256)
        let wideReference = try await Self.ffmpeg(path, scale: "320:256")
        #expect(wide.bitmap.pixels == wideReference)
        let tall = try VideoFrameDecoder().decode(file.source, size: VideoFrameSize(height: 100))
        #expect(tall.bitmap.width == 125 && tall.bitmap.height == 100)
        let box = try VideoFrameDecoder().decode(file.source, size: VideoFrameSize(width: 64, height: 48))
        let boxReference = try await Self.ffmpeg(path, scale: "64:48")
        #expect(box.bitmap.pixels == boxReference)
    }

    @Test func aRotatedVideoIsTurnedAsPlayersShowIt() async throws {
        let path = "frames/video_rotation_90.mp4"
        let frame = try VideoFrameDecoder().decode(try FileSource(path).source)
        #expect(frame.rotation == 90)
        // ffmpeg turns it too (autorotate): same size, and here the same pixels
        let reference = try await Self.ffmpeg(path)
        #expect(frame.bitmap.pixels == reference)
    }

    @Test func aSeekInAnIndexAtTheEndReadsTheIndexAndOneStretchOfPackets() throws {
        // mdat first, moov last: the decoder seeks to the index instead of reading through the packets
        let file = try FileSource("sample_with_increasing_timestamps_360p.mp4")
        let frame = try VideoFrameDecoder().decode(file.source, at: .progress(0.5))
        let read = file.read.withLock { $0.bytes }
        #expect(frame.bytesRead == Int64(read))
        #expect(read < file.bytes.count / 2, "read \(read) of \(file.bytes.count) bytes")
    }

    @Test func refusalsAreTyped() throws {
        let decoder = VideoFrameDecoder()
        let video = try FileSource("sample.mp4")
        for time in [VideoFrameTime.seconds(-1), .seconds(.nan), .progress(1), .progress(-0.1), .seconds(1_000)] {
            let error = #expect(throws: VideoFrameError.self) { try decoder.decode(video.source, at: time) }
            #expect(error?.code == .frameOutOfRange, "\(time)")
        }
        let png = FileSource(bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 100))
        #expect((#expect(throws: VideoFrameError.self) { try decoder.decode(png.source) })?.code == .notAVideo)
        let small = VideoFrameDecoder(configuration: .init(maxPixels: 100 * 100))
        #expect((#expect(throws: VideoFrameError.self) { try small.decode(video.source) })?.code == .tooLarge)
        #expect((#expect(throws: VideoFrameError.self) { try decoder.decode(video.source, size: VideoFrameSize(width: 0)) })?.code == .tooLarge)
        #expect((#expect(throws: VideoFrameError.self) { try decoder.decode(video.source, size: VideoFrameSize(width: 100_000, height: 100_000)) })?.code == .tooLarge)
        let failing = VideoFrameSource(size: Int64(video.bytes.count)) { offset, count in offset < 4_096 ? Array(video.bytes[Int(offset)..<min(video.bytes.count, Int(offset) + count)]) : nil }
        #expect((#expect(throws: VideoFrameError.self) { try decoder.decode(failing, at: .progress(0.5)) })?.code == .readFailed)
    }

    static let malformed: [String] = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("frames/malformed").path).sorted()) ?? []

    @Test func theMalformedFilesAreHere() { #expect(Self.malformed.count == 12) }

    @Test(arguments: malformed)
    func aMalformedFileEndsInATypedErrorOrAFrame(_ name: String) throws {
        let file = try FileSource("frames/malformed/\(name)")
        for time in [VideoFrameTime.first, .progress(0.5)] {
            do {
                let frame = try VideoFrameDecoder().decode(file.source, at: time)
                #expect(frame.bitmap.pixels.count == frame.bitmap.width * frame.bitmap.height * 4 && frame.bitmap.width > 0)
            } catch {
                #expect(!error.message.isEmpty, "\(name): \(error)")
            }
        }
    }
}
