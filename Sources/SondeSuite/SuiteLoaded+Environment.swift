import Foundation

extension SuiteLoader.Loaded {
    /// The header and query parameter names whose values the suite took from the environment
    /// (`${NAME}`): the run redacts them in every output, as it redacts Authorization; a
    /// subprotocol from the environment redacts Sec-WebSocket-Protocol.
    public var namesCarryingEnvironment: [String] {
        var names = Set<String>()
        for (_, keys) in written {
            for (key, value) in keys {
                let items: [String]
                switch value {
                case .scalar(let text): items = [text]
                case .list(let texts): items = texts
                case .requests(let requests): items = requests.map(\.url)
                }
                for item in items where item.contains("${") {
                    switch key {
                    case "headers":
                        if let colon = item.firstIndex(of: ":") { names.insert(item[..<colon].trimmingCharacters(in: .whitespaces).lowercased()) }
                    case "subprotocols":
                        names.insert("sec-websocket-protocol")
                    case "url", "urls", "proxy", "doh-url":
                        // Query (and fragment) parameters whose value holds a reference.
                        let query = item.split(separator: "?", maxSplits: 1).dropFirst().first.map(String.init) ?? ""
                        for parameter in query.split(whereSeparator: { $0 == "&" || $0 == ";" || $0 == "#" }) {
                            let parts = parameter.split(separator: "=", maxSplits: 1)
                            if parts.count == 2, parts[1].contains("${") { names.insert(String(parts[0]).lowercased()) }
                        }
                    default:
                        break
                    }
                }
            }
        }
        return names.sorted()
    }
}
