import AssetImaging
import Testing

@Suite struct GeometryTests {
    func geometry(_ text: String, _ width: Int, _ height: Int) throws -> [Int] {
        let g = try ImageTransform(parsing: text).geometry(sourceWidth: width, sourceHeight: height)
        return [g.resizedWidth, g.resizedHeight, g.outputWidth, g.outputHeight]
    }

    @Test func oneSideKeepsTheAspectRatio() throws {
        #expect(try geometry("w=512", 4000, 3000) == [512, 384, 512, 384])
        #expect(try geometry("h=300", 4000, 3000) == [400, 300, 400, 300])
        #expect(try geometry("w=512,dpr=2", 4000, 3000) == [1024, 768, 1024, 768])
    }

    @Test func smallerImagesAreNotEnlargedUnlessAsked() throws {
        #expect(try geometry("w=512", 200, 100) == [200, 100, 200, 100])
        #expect(try geometry("w=400,enlarge=1", 200, 100) == [400, 200, 400, 200])
        #expect(try geometry("w=400,h=400,fit=contain", 200, 100) == [200, 100, 400, 400])
        #expect(try geometry("w=400,h=400,fit=cover", 200, 100) == [200, 100, 200, 100])
    }

    @Test func everyFitOfABox() throws {
        #expect(try geometry("w=300,h=300,fit=inside", 4000, 3000) == [300, 225, 300, 225])
        #expect(try geometry("w=300,h=300,fit=contain", 4000, 3000) == [300, 225, 300, 300])
        #expect(try geometry("w=300,h=300,fit=cover", 4000, 3000) == [400, 300, 300, 300])
        #expect(try geometry("w=300,h=300,fit=outside", 4000, 3000) == [400, 300, 400, 300])
        #expect(try geometry("w=300,h=300,fit=fill", 4000, 3000) == [300, 300, 300, 300])
        #expect(try geometry("w=300,h=100,fit=cover", 3000, 4000) == [300, 400, 300, 100])
    }
}
