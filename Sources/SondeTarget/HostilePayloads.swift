/// Strings a hostile or lying server sends to break a report: markup, script, attribute and
/// style breakouts, XML/CDATA breakouts, JSON and Prometheus label breakouts, control and
/// bidirectional characters. Every script payload, if it ever ran, would set `data-xss` on the
/// page's body, which the browser tests look for. All are valid HTTP header values (no CR/LF/NUL).
public enum HostilePayloads {
    static let marker = "document.body.setAttribute('data-xss',1)"

    public static let corpus: [String] = [
        "<script>\(marker)</script>",
        "<img src=x onerror=\"\(marker)\">",
        "\"><svg onload=\(marker)>",
        "'><iframe srcdoc=\"<script>parent.\(marker)</script>\">",
        "</td></tr></table><script>\(marker)</script>",
        "</style><script>\(marker)</script>",
        "</title><script>\(marker)</script>",
        "<a href=\"javascript:\(marker)\">click</a>",
        "<math><mi xlink:href=\"javascript:\(marker)\">x</mi></math>",
        "<!--<script>--><script>\(marker)</script>",
        "]]><evil attr=\"x\"/><![CDATA[",
        "\" onmouseover=\"\(marker)\" x=\"",
        "\\\"},\"injected\":true,\"x\":{\"",
        "label\"} 1\nfake_metric{a=\"",
        "\u{1B}[31mred\u{1B}[0m \u{7} \u{8}",
        "\u{202E}gnp.exe \u{200B}zero-width",
        "{{constructor.constructor('\(marker)')()}}",
        "${alert(1)} #{alert(1)} <%= 7*7 %>",
    ]
}
