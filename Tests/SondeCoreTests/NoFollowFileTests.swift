import Foundation
import Testing
@testable import SondeCore

/// `NoFollowFile`: nothing is created or written through a symbolic link.
@Suite struct NoFollowFileTests {
    private func scratch() -> String {
        let path = NSTemporaryDirectory() + "sonde-nofollow-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func aPlantedLinkIsNeverWrittenThrough() throws {
        let directory = scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let victim = directory + "/victim", link = directory + "/journal.jsonl"
        try "precious".write(toFile: victim, atomically: false, encoding: .utf8)
        #expect(symlink(victim, link) == 0)
        #expect(throws: TaskError.self) { _ = try NoFollowFile.create(link) }
        #expect(throws: TaskError.self) { _ = try Journal(path: link) }
        #expect(throws: TaskError.self) { _ = try NoFollowFile.openOrCreate(link) }
        // `replace` removes the link itself and creates a file of its own.
        let descriptor = try NoFollowFile.replace(link)
        try writeAll(descriptor: descriptor, bytes: Array("new".utf8), path: link)
        close(descriptor)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        #expect(try String(contentsOfFile: link, encoding: .utf8) == "new")
        try NoFollowFile.writeReplacing(directory + "/state.json", Array("{}".utf8))
        #expect(symlink(victim, directory + "/other.json.tmp") == 0)
        try NoFollowFile.writeReplacing(directory + "/other.json", Array("{}".utf8))
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
    }

    @Test func aFolderIsMadeOnlyWhereNothingIs() throws {
        let directory = scratch()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try NoFollowFile.makeDirectory(directory + "/a"))
        #expect(try !NoFollowFile.makeDirectory(directory + "/a"))
        #expect(symlink(directory + "/a", directory + "/b") == 0)
        #expect(try !NoFollowFile.makeDirectory(directory + "/b"))
        #expect(throws: TaskError.self) { try NoFollowFile.ensureDirectory(directory + "/b") }
        try NoFollowFile.ensureDirectory(directory + "/a")
    }
}
