import CurlShim
import SondeCore

/// A libcurl multi handle: the connection pool and the event loop that drives easy handles.
///
/// Threading: confined to the thread that calls `perform`/`wait`; every easy handle added to it
/// is driven (and its callbacks invoked) on that thread.
final class MultiHandle {
    let raw: UnsafeMutableRawPointer

    init(multiplex: Bool) throws(TaskError) {
        CurlLibrary.initialise()
        guard let handle = curl_multi_init() else {
            throw TaskError(code: .internalError, message: "libcurl could not create a multi handle (out of memory?)")
        }
        raw = handle
        // CURLMOPT_PIPELINING (https://curl.se/libcurl/c/CURLMOPT_PIPELINING.html): HTTP/2 multiplexing.
        _ = sonde_multi_setopt_long(raw, CURLMOPT_PIPELINING, multiplex ? Int(CURLPIPE_MULTIPLEX) : Int(CURLPIPE_NOTHING))
    }

    deinit {
        curl_multi_cleanup(raw)
    }

    func add(_ easy: EasyHandle) throws(TaskError) {
        let code = curl_multi_add_handle(raw, easy.raw)
        guard code == CURLM_OK else {
            throw TaskError(code: .internalError, message: "libcurl: \(String(cString: curl_multi_strerror(code)))")
        }
    }

    func remove(_ easy: EasyHandle) {
        _ = curl_multi_remove_handle(raw, easy.raw)
    }

    /// Runs whatever can run now without blocking; returns the number of transfers still running.
    func perform() -> Int32 {
        var running: Int32 = 0
        _ = curl_multi_perform(raw, &running)
        return running
    }

    /// Blocks until there is socket activity or `timeoutMs` passes (curl_multi_poll).
    func wait(timeoutMs: Int32) {
        var ready: Int32 = 0
        _ = curl_multi_poll(raw, nil, 0, timeoutMs, &ready)
    }

    /// The transfers that finished since the last call: the raw easy pointer and its result.
    func completedTransfers() -> [(easy: UnsafeMutableRawPointer, result: CURLcode)] {
        var done: [(UnsafeMutableRawPointer, CURLcode)] = []
        var queued: Int32 = 0
        while let message = curl_multi_info_read(raw, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            done.append((easy, message.pointee.data.result))
        }
        return done
    }
}
