// An independent Component Authentication Claims server (v2): Java 17, the JDK only
// (com.sun.net.httpserver, java.util.zip), JSON read and written by hand. No build step:
//
//     java Server.java [--port 0] [--rate-limit N] [--variant NAME ...] [--list-variants]
//
// The first line on stdout is `listening on http://127.0.0.1:PORT`. Variants also come from
// INDEP_VARIANTS (comma separated).
//
// Written from the interface description alone, the way a Java team without a framework writes
// a production service: a filter chain (rate limit, then gzip), a Spring-like error body, a
// thread pool, state in concurrent maps. It keeps state: a successful Authorize records its model
// as the claim of (component, environment); Auth Claims returns the current claim; the Authorize
// answer carries the claim it replaced.
//
// Its choices where the description is silent (java.yaml declares them):
// - modelUuid travels in the query parameter `model_uuid` (variant `model-header`: in the header
//   X-Model-Uuid); missing or not a uuid: 417; a uuid the component has no model of: 409.
// - A missing or empty X-Client-Id / X-Client-Secret: 400 (7.1 shape); a wrong one: 403.
// - X-Auth-Token: missing where the component requires auth: 401 with `WWW-Authenticate:
//   Bearer`; wrong (or issued for another component): 403. A token sent to a component that
//   does not require auth is not looked at.
// - X-Project-Env other than `dev` / `live` (exact letter case): 417. No X-Project-Env: `live`.
// - An unknown ref: 404. Names and tags match exactly; a uuid in any letter case (hyphenated).
//   A ref that is not UTF-8 once percent-decoded: 400.
// - A body that is not JSON (RFC 8259, strictly: no comments, NaN, trailing bytes): 400. A
//   POST whose Content-Type is not JSON: 415 (none at all is read as JSON). A body over 4 KiB:
//   413. JSON nested deeper than 512 levels: 417.
// - A field the settings do not define is ignored. An integer is a JSON number written without
//   fraction or exponent. Lengths count code points.
// - A GET body, when there is one, is validated like Authorize's (417), modelUuid aside.
// - `code` is the HTTP status times 100 plus a reason (40001, 40301, 41700, 42900, ...);
//   `request_id` is 32 hex digits (a uuid without hyphens), also sent as X-Request-Id; every
//   error body also has `timestamp` and `path`, as Spring Boot's do.
// - 417 `errors` items: {field, location: body|query|header, code: REQUIRED|TYPE|..., detail}.
// - X-Project-Uuid on every answer, success or error; `Cache-Control: no-store` too.
// - Success: Auth Claims 200 {component: {uuid, name, tag}, environment, claim: {model_uuid,
//   model_name, since} | null}; Authorize 201 {authorization: {component_uuid, environment,
//   model_uuid, replaced_model_uuid: uuid | null, access_token, token_type, expires_in}} with a
//   Location header. Each Authorize issues a token bound to its component; tokens never expire
//   here, whatever `expires_in` says.
// - Each component has two models; claims are kept per (component, environment).
// - Rate limit: a token bucket per X-Client-Id (per remote address without one): `--rate-limit
//   N` requests a second (default 200; 0 turns it off), bursts of N/10 (at least 1); over it:
//   429 in the 7.1 shape with `Retry-After` (whole seconds) and X-Project-Uuid.
// - Compression: gzip when Accept-Encoding accepts it (gzip or *, q above 0), for every answer
//   with a body; `Vary: Accept-Encoding` on every answer. No br (the JDK has no Brotli).
// - Paths outside /v2/api/ get the JDK's own answer (an HTML 404, "No context found for
//   request"); under /v2/api/, any other path is a 404 and another method on the interface's
//   path a 405 with Allow, both JSON.
//
// Variants (`fault-...` are bugs real teams ship, not choices):
// - `model-header`: modelUuid in the header X-Model-Uuid instead of the query.
// - `limit-503`: the rate limit answered 503 (load shed) instead of 429, Retry-After as ever.
// - `chunked`: every answer streamed chunked, without Content-Length.
// - `fault-env-leak`: claims stored without their environment (made in dev, read in live).
// - `fault-limit-text`: the rate limiter answers text/plain, without X-Project-Uuid.
// - `fault-compressed-no-content-type`: a gzipped answer loses its Content-Type.
// - `fault-token-any-component`: a token Authorize issued is taken for every component.
// - `fault-validation-400`: a body that breaks the field rules answered 400 (7.1), not 417.

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;

public class Server {
    static final String PROJECT_UUID = "8f3b2a10-6c4d-4e5f-9a7b-1c2d3e4f5a6b";
    static final String CLIENT_ID = "java-client";
    static final String CLIENT_SECRET = "jv-secret-Qx9d";
    static final int BODY_LIMIT = 4 * 1024;
    static final int MAX_DEPTH = 512;
    static final int DEFAULT_RATE = 200;
    static final Pattern PATH = Pattern.compile("^/v2/api/component/([^/]+)/auth$");
    static final Pattern UUID_FORM =
            Pattern.compile("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$");

    static final Map<String, String> VARIANTS = new LinkedHashMap<>();

    static {
        VARIANTS.put("model-header", "modelUuid in the header X-Model-Uuid, not the query");
        VARIANTS.put("limit-503", "the rate limit answered 503 (load shed), not 429");
        VARIANTS.put("chunked", "every answer streamed chunked, without Content-Length");
        VARIANTS.put("fault-env-leak", "FAULT: claims stored without their environment");
        VARIANTS.put("fault-limit-text", "FAULT: the rate limiter answers text/plain without X-Project-Uuid");
        VARIANTS.put("fault-compressed-no-content-type", "FAULT: a gzipped answer loses its Content-Type");
        VARIANTS.put("fault-token-any-component", "FAULT: an issued token is taken for every component");
        VARIANTS.put("fault-validation-400", "FAULT: a body breaking the field rules answered 400, not 417");
    }

    // --- the components' auth settings ------------------------------------------------------

    enum Kind { STRING, INTEGER, NUMBER, BOOLEAN }

    record Rule(String name, Kind kind, boolean required, Integer minLength, Integer maxLength,
                BigDecimal minimum, BigDecimal maximum, Pattern pattern, List<String> allowed) {
        static Rule string(String name, boolean required, Integer min, Integer max, String pattern, String... allowed) {
            return new Rule(name, Kind.STRING, required, min, max, null, null,
                    pattern == null ? null : Pattern.compile(pattern), allowed.length == 0 ? null : List.of(allowed));
        }

        static Rule integer(String name, boolean required, long min, long max) {
            return new Rule(name, Kind.INTEGER, required, null, null, BigDecimal.valueOf(min), BigDecimal.valueOf(max), null, null);
        }

        static Rule number(String name, boolean required, String min, String max) {
            return new Rule(name, Kind.NUMBER, required, null, null, new BigDecimal(min), new BigDecimal(max), null, null);
        }

        static Rule bool(String name, boolean required) {
            return new Rule(name, Kind.BOOLEAN, required, null, null, null, null, null, null);
        }
    }

    record Model(String uuid, String name) {}

    record Component(String name, String tag, String uuid, boolean requiresAuth, String token,
                     List<Model> models, List<Rule> rules) {}

    static final List<Component> COMPONENTS = List.of(
            new Component("Ledger Core", "ledger", "3a7f1c2e-9b4d-4e6f-8a1b-2c3d4e5f6a7b", true,
                    "ledger-token-jv-2718",
                    List.of(new Model("5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e", "ledger-writer"),
                            new Model("6c7d8e9f-0a1b-4c2d-9e3f-4a5b6c7d8e9f", "ledger-reader")),
                    List.of(Rule.string("account", true, null, null, "[A-Z]{2}[0-9]{6}"),
                            Rule.string("passphrase", true, 8, 64, null),
                            Rule.string("currency", false, null, null, null, "EUR", "USD", "JPY"))),
            new Component("Scheduler", "cron-v3", "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b", false, null,
                    List.of(new Model("1f2e3d4c-5b6a-4798-8a6b-5c4d3e2f1a0b", "cron-admin"),
                            new Model("2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d", "cron-viewer")),
                    List.of(Rule.string("expression", true, 9, 64, null),
                            Rule.integer("retries", false, 0, 5),
                            Rule.bool("paused", false))),
            new Component("Åland Ferries", "aland-ferries", "4d5e6f70-8192-4a3b-bc4d-5e6f70819a2b", false, null,
                    List.of(new Model("7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b", "booking"),
                            new Model("8f9a0b1c-2d3e-4f4a-9b5c-6d7e8f9a0b1c", "audit")),
                    List.of(Rule.string("route", true, null, null, null, "north", "south"),
                            Rule.integer("passengers", true, 1, 400),
                            Rule.number("load_factor", false, "0", "1"))));

    // --- state ------------------------------------------------------------------------------

    record Claim(Model model, Instant since) {}

    /** The claim of each (component uuid, environment): "uuid env" -> claim. */
    static final ConcurrentHashMap<String, Claim> CLAIMS = new ConcurrentHashMap<>();
    /** Every token Authorize issued, bound to its component's uuid. */
    static final ConcurrentHashMap<String, String> ISSUED = new ConcurrentHashMap<>();
    static final SecureRandom RANDOM = new SecureRandom();

    static Set<String> variants = Set.of();
    static int rateLimit = DEFAULT_RATE;

    // --- errors -----------------------------------------------------------------------------

    /** A refusal with the 7.1 fields: status, reason digit(s), message, extra headers. */
    static final class ApiError extends Exception {
        final int status;
        final int reason;
        final Map<String, String> headers;

        ApiError(int status, int reason, String message, Map<String, String> headers) {
            super(message, null, false, false);
            this.status = status;
            this.reason = reason;
            this.headers = headers;
        }

        ApiError(int status, int reason, String message) {
            this(status, reason, message, Map.of());
        }
    }

    /** A request that failed validation: a 417 with these items. */
    static final class Invalid extends Exception {
        final List<Map<String, Object>> items;

        Invalid(List<Map<String, Object>> items) {
            super("validation failed", null, false, false);
            this.items = items;
        }
    }

    static Map<String, Object> item(String field, String location, String code, String detail) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("field", field);
        m.put("location", location);
        m.put("code", code);
        m.put("detail", detail);
        return m;
    }

    static String newRequestId() {
        byte[] b = new byte[16];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    static String now() {
        return Instant.now().truncatedTo(ChronoUnit.MILLIS).toString();
    }

    // --- JSON, by hand ----------------------------------------------------------------------

    /** A JSON number as written: its text decides integer or not. */
    record Num(String text) {
        boolean integral() {
            return text.indexOf('.') < 0 && text.indexOf('e') < 0 && text.indexOf('E') < 0;
        }

        BigDecimal value() {
            return new BigDecimal(text);
        }
    }

    static final class Malformed extends Exception {
        Malformed(String message) {
            super(message, null, false, false);
        }
    }

    static final class TooDeep extends Exception {
        TooDeep() {
            super("too deep", null, false, false);
        }
    }

    /** RFC 8259, strictly: one value, whitespace around it, nothing else. */
    static final class JsonReader {
        private final String s;
        private int i;

        JsonReader(String s) {
            this.s = s;
        }

        static Object parse(String text) throws Malformed, TooDeep {
            JsonReader r = new JsonReader(text);
            r.ws();
            Object v = r.value(0);
            r.ws();
            if (r.i != r.s.length()) {
                throw new Malformed("unexpected text after the JSON value at offset " + r.i);
            }
            return v;
        }

        private void ws() {
            while (i < s.length()) {
                char c = s.charAt(i);
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                    i++;
                } else {
                    break;
                }
            }
        }

        private Malformed fail(String what) {
            return new Malformed(what + " at offset " + i);
        }

        private Object value(int depth) throws Malformed, TooDeep {
            if (depth > MAX_DEPTH) {
                throw new TooDeep();
            }
            if (i >= s.length()) {
                throw fail("unexpected end of input");
            }
            char c = s.charAt(i);
            switch (c) {
                case '{': return object(depth);
                case '[': return array(depth);
                case '"': return string();
                case 't': return literal("true", Boolean.TRUE);
                case 'f': return literal("false", Boolean.FALSE);
                case 'n': return literal("null", null);
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        return number();
                    }
                    throw fail("unexpected character");
            }
        }

        private Object literal(String word, Object v) throws Malformed {
            if (!s.startsWith(word, i)) {
                throw fail("unexpected character");
            }
            i += word.length();
            return v;
        }

        private Map<String, Object> object(int depth) throws Malformed, TooDeep {
            Map<String, Object> m = new LinkedHashMap<>();
            i++;
            ws();
            if (i < s.length() && s.charAt(i) == '}') {
                i++;
                return m;
            }
            while (true) {
                ws();
                if (i >= s.length() || s.charAt(i) != '"') {
                    throw fail("expected a member name");
                }
                String k = string();
                ws();
                if (i >= s.length() || s.charAt(i) != ':') {
                    throw fail("expected ':'");
                }
                i++;
                ws();
                m.put(k, value(depth + 1));
                ws();
                if (i < s.length() && s.charAt(i) == ',') {
                    i++;
                    continue;
                }
                if (i < s.length() && s.charAt(i) == '}') {
                    i++;
                    return m;
                }
                throw fail("expected ',' or '}'");
            }
        }

        private List<Object> array(int depth) throws Malformed, TooDeep {
            List<Object> a = new ArrayList<>();
            i++;
            ws();
            if (i < s.length() && s.charAt(i) == ']') {
                i++;
                return a;
            }
            while (true) {
                ws();
                a.add(value(depth + 1));
                ws();
                if (i < s.length() && s.charAt(i) == ',') {
                    i++;
                    continue;
                }
                if (i < s.length() && s.charAt(i) == ']') {
                    i++;
                    return a;
                }
                throw fail("expected ',' or ']'");
            }
        }

        private String string() throws Malformed {
            StringBuilder b = new StringBuilder();
            i++;
            while (true) {
                if (i >= s.length()) {
                    throw fail("unterminated string");
                }
                char c = s.charAt(i++);
                if (c == '"') {
                    return b.toString();
                }
                if (c < 0x20) {
                    throw fail("control character in a string");
                }
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                if (i >= s.length()) {
                    throw fail("unterminated escape");
                }
                char e = s.charAt(i++);
                switch (e) {
                    case '"': b.append('"'); break;
                    case '\\': b.append('\\'); break;
                    case '/': b.append('/'); break;
                    case 'b': b.append('\b'); break;
                    case 'f': b.append('\f'); break;
                    case 'n': b.append('\n'); break;
                    case 'r': b.append('\r'); break;
                    case 't': b.append('\t'); break;
                    case 'u':
                        if (i + 4 > s.length()) {
                            throw fail("short \\u escape");
                        }
                        try {
                            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        } catch (NumberFormatException ex) {
                            throw fail("bad \\u escape");
                        }
                        i += 4;
                        break;
                    default:
                        throw fail("bad escape");
                }
            }
        }

        private Num number() throws Malformed {
            int start = i;
            if (s.charAt(i) == '-') {
                i++;
            }
            if (i >= s.length()) {
                throw fail("bad number");
            }
            if (s.charAt(i) == '0') {
                i++;
            } else if (s.charAt(i) >= '1' && s.charAt(i) <= '9') {
                while (i < s.length() && Character.isDigit(s.charAt(i)) && s.charAt(i) < 128) {
                    i++;
                }
            } else {
                throw fail("bad number");
            }
            if (i < s.length() && s.charAt(i) == '.') {
                i++;
                int digits = i;
                while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                    i++;
                }
                if (i == digits) {
                    throw fail("bad fraction");
                }
            }
            if (i < s.length() && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
                i++;
                if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
                    i++;
                }
                int digits = i;
                while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                    i++;
                }
                if (i == digits) {
                    throw fail("bad exponent");
                }
            }
            return new Num(s.substring(start, i));
        }
    }

    static void writeJson(StringBuilder b, Object v) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof String str) {
            b.append('"');
            for (int k = 0; k < str.length(); k++) {
                char c = str.charAt(k);
                switch (c) {
                    case '"': b.append("\\\""); break;
                    case '\\': b.append("\\\\"); break;
                    case '\n': b.append("\\n"); break;
                    case '\r': b.append("\\r"); break;
                    case '\t': b.append("\\t"); break;
                    default:
                        if (c < 0x20 || Character.isSurrogate(c)) {
                            b.append(String.format("\\u%04x", (int) c));
                        } else {
                            b.append(c);
                        }
                }
            }
            b.append('"');
        } else if (v instanceof Boolean || v instanceof Integer || v instanceof Long) {
            b.append(v);
        } else if (v instanceof Num n) {
            b.append(n.text());
        } else if (v instanceof Map<?, ?> m) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!first) {
                    b.append(',');
                }
                first = false;
                writeJson(b, String.valueOf(e.getKey()));
                b.append(':');
                writeJson(b, e.getValue());
            }
            b.append('}');
        } else if (v instanceof List<?> l) {
            b.append('[');
            for (int k = 0; k < l.size(); k++) {
                if (k > 0) {
                    b.append(',');
                }
                writeJson(b, l.get(k));
            }
            b.append(']');
        } else {
            writeJson(b, v.toString());
        }
    }

    static String json(Object v) {
        StringBuilder b = new StringBuilder();
        writeJson(b, v);
        return b.toString();
    }

    // --- the answer -------------------------------------------------------------------------

    /** What a handler answers; the filters (gzip, common headers) finish it. */
    record Answer(int status, String contentType, byte[] body, Map<String, String> headers) {
        static Answer json(int status, Object body, Map<String, String> headers) {
            return new Answer(status, "application/json; charset=utf-8",
                    Server.json(body).getBytes(StandardCharsets.UTF_8), headers);
        }
    }

    static Answer errorAnswer(HttpExchange ex, String requestId, int status, int reason, String message,
                              Map<String, String> headers) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("code", status * 100 + reason);
        body.put("message", message);
        body.put("request_id", requestId);
        body.put("status", false);
        body.put("timestamp", now());
        body.put("path", ex.getRequestURI().getRawPath());
        return Answer.json(status, body, headers);
    }

    static boolean acceptsGzip(Headers h) {
        List<String> all = h.get("Accept-Encoding");
        if (all == null) {
            return false;
        }
        for (String line : all) {
            for (String part : line.split(",")) {
                String[] bits = part.trim().split(";");
                String coding = bits[0].trim().toLowerCase(Locale.ROOT);
                double q = 1.0;
                for (int k = 1; k < bits.length; k++) {
                    String p = bits[k].trim();
                    if (p.toLowerCase(Locale.ROOT).startsWith("q=")) {
                        try {
                            q = Double.parseDouble(p.substring(2).trim());
                        } catch (NumberFormatException e) {
                            q = 0;
                        }
                    }
                }
                if ((coding.equals("gzip") || coding.equals("*")) && q > 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Sends `a`: common headers, gzip where accepted, fixed length or chunked. */
    static void send(HttpExchange ex, String requestId, Answer a) throws IOException {
        Headers out = ex.getResponseHeaders();
        byte[] body = a.body();
        boolean gzip = body.length > 0 && acceptsGzip(ex.getRequestHeaders())
                && !"HEAD".equals(ex.getRequestMethod());
        if (a.contentType() != null && !(gzip && variants.contains("fault-compressed-no-content-type"))) {
            out.set("Content-Type", a.contentType());
        }
        if (a.headers().get("X-Project-Uuid") == null && !a.headers().containsKey("-no-project-uuid")) {
            out.set("X-Project-Uuid", PROJECT_UUID);
        }
        out.set("X-Request-Id", requestId);
        out.set("Cache-Control", "no-store");
        out.set("Vary", "Accept-Encoding");
        for (Map.Entry<String, String> e : a.headers().entrySet()) {
            if (!e.getKey().startsWith("-")) {
                out.set(e.getKey(), e.getValue());
            }
        }
        if (gzip) {
            ByteArrayOutputStream zipped = new ByteArrayOutputStream();
            try (GZIPOutputStream z = new GZIPOutputStream(zipped)) {
                z.write(body);
            }
            body = zipped.toByteArray();
            out.set("Content-Encoding", "gzip");
        }
        if ("HEAD".equals(ex.getRequestMethod())) {
            ex.sendResponseHeaders(a.status(), -1);
            ex.close();
            return;
        }
        boolean chunked = variants.contains("chunked") && body.length > 0;
        ex.sendResponseHeaders(a.status(), chunked ? 0 : (body.length == 0 ? -1 : body.length));
        try (OutputStream os = ex.getResponseBody()) {
            if (chunked) {
                int half = body.length / 2;
                os.write(body, 0, half);
                os.flush();
                os.write(body, half, body.length - half);
            } else {
                os.write(body);
            }
        }
    }

    // --- the rate limit ---------------------------------------------------------------------

    /** A token bucket: `rate` a second, at most `burst` at once. */
    static final class Bucket {
        private double tokens;
        private long last = System.nanoTime();

        Bucket(double tokens) {
            this.tokens = tokens;
        }

        /** 0 when a request may go now, else the whole seconds to wait. */
        synchronized long take(double rate, double burst) {
            long t = System.nanoTime();
            tokens = Math.min(burst, tokens + (t - last) / 1e9 * rate);
            last = t;
            if (tokens >= 1) {
                tokens -= 1;
                return 0;
            }
            return Math.max(1, (long) Math.ceil((1 - tokens) / rate));
        }
    }

    static final ConcurrentHashMap<String, Bucket> BUCKETS = new ConcurrentHashMap<>();
    static final java.util.concurrent.atomic.AtomicLong SEEN = new java.util.concurrent.atomic.AtomicLong();

    static final class RateLimitFilter extends Filter {
        @Override
        public void doFilter(HttpExchange ex, Chain chain) throws IOException {
            if (rateLimit > 0) {
                double burst = Math.max(1, rateLimit / 10);
                String client = ex.getRequestHeaders().getFirst("X-Client-Id");
                String key = client == null || client.isEmpty()
                        ? "addr " + ex.getRemoteAddress().getAddress().getHostAddress()
                        : "client " + client;
                long wait = BUCKETS.computeIfAbsent(key, k -> new Bucket(burst)).take(rateLimit, burst);
                // The faulty limiter also limits the server's 30th request,
                // whatever the bucket holds: however slow the machine, a run
                // meets it.
                if (wait == 0 && variants.contains("fault-limit-text") && SEEN.incrementAndGet() == 30) {
                    wait = 1;
                }
                if (wait > 0) {
                    drain(ex);
                    String requestId = newRequestId();
                    if (variants.contains("fault-limit-text")) {
                        send(ex, requestId, new Answer(429, "text/plain; charset=utf-8",
                                "Too Many Requests\n".getBytes(StandardCharsets.UTF_8),
                                Map.of("-no-project-uuid", "", "Retry-After", Long.toString(wait))));
                    } else {
                        int status = variants.contains("limit-503") ? 503 : 429;
                        send(ex, requestId, errorAnswer(ex, requestId, status, 0,
                                "Too many requests: at most " + rateLimit + " a second per client",
                                Map.of("Retry-After", Long.toString(wait))));
                    }
                    return;
                }
            }
            chain.doFilter(ex);
        }

        @Override
        public String description() {
            return "a token bucket per client";
        }
    }

    /** Reads what is left of the request body, so a kept-alive connection stays in step. */
    static void drain(HttpExchange ex) {
        try (InputStream in = ex.getRequestBody()) {
            in.transferTo(OutputStream.nullOutputStream());
        } catch (IOException ignored) {
            // The connection is closed after the answer anyway.
        }
    }

    // --- the handler ------------------------------------------------------------------------

    static String header(HttpExchange ex, String name) {
        return ex.getRequestHeaders().getFirst(name);
    }

    static boolean same(String given, String expected) {
        return MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8), expected.getBytes(StandardCharsets.UTF_8));
    }

    /** Percent-decodes `raw` and reads it as UTF-8; null when it is not UTF-8. */
    static String decode(String raw, boolean plusIsSpace) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        for (int k = 0; k < raw.length(); k++) {
            char c = raw.charAt(k);
            if (c == '%' && k + 2 < raw.length()
                    && Character.digit(raw.charAt(k + 1), 16) >= 0 && Character.digit(raw.charAt(k + 2), 16) >= 0) {
                bytes.write(Integer.parseInt(raw.substring(k + 1, k + 3), 16));
                k += 2;
            } else if (c == '+' && plusIsSpace) {
                bytes.write(' ');
            } else {
                byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(b, 0, b.length);
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()))
                    .toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    static Map<String, String> query(HttpExchange ex) {
        Map<String, String> q = new LinkedHashMap<>();
        String raw = ex.getRequestURI().getRawQuery();
        if (raw == null || raw.isEmpty()) {
            return q;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String k = decode(eq < 0 ? pair : pair.substring(0, eq), true);
            String v = decode(eq < 0 ? "" : pair.substring(eq + 1), true);
            if (k != null && v != null) {
                q.putIfAbsent(k, v);
            }
        }
        return q;
    }

    static Component find(String ref) {
        for (Component c : COMPONENTS) {
            if (c.name().equals(ref) || c.tag().equals(ref)) {
                return c;
            }
            if (UUID_FORM.matcher(ref).matches() && ref.toLowerCase(Locale.ROOT).equals(c.uuid())) {
                return c;
            }
        }
        return null;
    }

    static String claimKey(Component c, String env) {
        return variants.contains("fault-env-leak") ? c.uuid() : c.uuid() + " " + env;
    }

    static Map<String, Object> componentView(Component c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("uuid", c.uuid());
        m.put("name", c.name());
        m.put("tag", c.tag());
        return m;
    }

    /** Reads the body, at most BODY_LIMIT bytes; null when it is over. */
    static byte[] readBody(HttpExchange ex) throws IOException {
        String length = header(ex, "Content-Length");
        if (length != null) {
            try {
                if (Long.parseLong(length.trim()) > BODY_LIMIT) {
                    drain(ex);
                    return null;
                }
            } catch (NumberFormatException ignored) {
                // The JDK has already refused a Content-Length it cannot read.
            }
        }
        try (InputStream in = ex.getRequestBody()) {
            byte[] b = in.readNBytes(BODY_LIMIT + 1);
            if (b.length > BODY_LIMIT) {
                in.transferTo(OutputStream.nullOutputStream());
                return null;
            }
            return b;
        }
    }

    /** The body as JSON: 400 when it is not UTF-8 or not JSON, 417 when nested too deep. */
    static Object parseBody(byte[] raw) throws ApiError, Invalid {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(raw))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new ApiError(400, 2, "The request body is not UTF-8");
        }
        try {
            return JsonReader.parse(text);
        } catch (Malformed e) {
            throw new ApiError(400, 3, "The request body is not JSON: " + e.getMessage());
        } catch (TooDeep e) {
            throw new Invalid(List.of(item("", "body", "DEPTH", "nested deeper than " + MAX_DEPTH + " levels")));
        }
    }

    /** The field rules of `c` against `body`; the items of every failure. */
    static List<Map<String, Object>> validate(Component c, Object body) {
        List<Map<String, Object>> items = new ArrayList<>();
        if (!(body instanceof Map<?, ?> fields)) {
            items.add(item("", "body", "TYPE", "must be a JSON object"));
            return items;
        }
        for (Rule r : c.rules()) {
            if (!fields.containsKey(r.name())) {
                if (r.required()) {
                    items.add(item(r.name(), "body", "REQUIRED", "is required"));
                }
                continue;
            }
            Object v = fields.get(r.name());
            switch (r.kind()) {
                case STRING -> {
                    if (!(v instanceof String str)) {
                        items.add(item(r.name(), "body", "TYPE", "must be a string"));
                        break;
                    }
                    int n = str.codePointCount(0, str.length());
                    if (r.minLength() != null && n < r.minLength()) {
                        items.add(item(r.name(), "body", "MIN_LENGTH", "must be at least " + r.minLength() + " characters"));
                    }
                    if (r.maxLength() != null && n > r.maxLength()) {
                        items.add(item(r.name(), "body", "MAX_LENGTH", "must be at most " + r.maxLength() + " characters"));
                    }
                    if (r.pattern() != null && !r.pattern().matcher(str).matches()) {
                        items.add(item(r.name(), "body", "PATTERN", "must match " + r.pattern().pattern()));
                    }
                    if (r.allowed() != null && !r.allowed().contains(str)) {
                        items.add(item(r.name(), "body", "ENUM", "must be one of " + String.join(", ", r.allowed())));
                    }
                }
                case INTEGER, NUMBER -> {
                    if (!(v instanceof Num num) || (r.kind() == Kind.INTEGER && !num.integral())) {
                        items.add(item(r.name(), "body", "TYPE",
                                r.kind() == Kind.INTEGER ? "must be an integer" : "must be a number"));
                        break;
                    }
                    BigDecimal d;
                    try {
                        d = num.value();
                    } catch (NumberFormatException | ArithmeticException e) {
                        // An exponent past what BigDecimal holds: far outside any bound.
                        items.add(item(r.name(), "body", "RANGE", "is out of range"));
                        break;
                    }
                    if (d.compareTo(r.minimum()) < 0) {
                        items.add(item(r.name(), "body", "MINIMUM", "must be at least " + r.minimum()));
                    }
                    if (d.compareTo(r.maximum()) > 0) {
                        items.add(item(r.name(), "body", "MAXIMUM", "must be at most " + r.maximum()));
                    }
                }
                case BOOLEAN -> {
                    if (!(v instanceof Boolean)) {
                        items.add(item(r.name(), "body", "TYPE", "must be a boolean"));
                    }
                }
            }
        }
        return items;
    }

    static final class Api implements com.sun.net.httpserver.HttpHandler {
        @Override
        public void handle(HttpExchange ex) throws IOException {
            String requestId = newRequestId();
            Answer answer;
            try {
                answer = route(ex, requestId);
            } catch (ApiError e) {
                drain(ex);
                answer = errorAnswer(ex, requestId, e.status, e.reason, e.getMessage(), e.headers);
            } catch (Invalid e) {
                drain(ex);
                if (variants.contains("fault-validation-400")
                        && e.items.stream().allMatch(it -> "body".equals(it.get("location")))) {
                    answer = errorAnswer(ex, requestId, 400, 1,
                            "Validation failed for object='authRequest'. Error count: " + e.items.size(), Map.of());
                } else {
                    Map<String, Object> body = new LinkedHashMap<>();
                    body.put("code", 41700);
                    body.put("errors", e.items);
                    body.put("status", false);
                    answer = Answer.json(417, body, Map.of());
                }
            } catch (RuntimeException e) {
                e.printStackTrace();
                drain(ex);
                answer = errorAnswer(ex, requestId, 500, 0, "Internal server error", Map.of());
            }
            try {
                send(ex, requestId, answer);
            } finally {
                ex.close();
            }
        }

        Answer route(HttpExchange ex, String requestId) throws IOException, ApiError, Invalid {
            Matcher m = PATH.matcher(ex.getRequestURI().getRawPath());
            if (!m.matches()) {
                throw new ApiError(404, 0, "No handler for " + ex.getRequestMethod() + " " + ex.getRequestURI().getRawPath());
            }
            String method = ex.getRequestMethod();
            if (!method.equals("GET") && !method.equals("POST")) {
                throw new ApiError(405, 0, "Request method '" + method + "' is not supported",
                        Map.of("Allow", "GET, POST"));
            }
            byte[] raw = readBody(ex);
            if (raw == null) {
                throw new ApiError(413, 0, "The request body is over " + BODY_LIMIT + " bytes");
            }
            String ref = decode(m.group(1), false);
            if (ref == null) {
                throw new ApiError(400, 4, "The component reference is not UTF-8");
            }

            String clientId = header(ex, "X-Client-Id");
            String clientSecret = header(ex, "X-Client-Secret");
            if (clientId == null || clientId.isEmpty() || clientSecret == null || clientSecret.isEmpty()) {
                throw new ApiError(400, 1, "Required request headers X-Client-Id and X-Client-Secret are not present");
            }
            boolean idOk = same(clientId, CLIENT_ID);
            boolean secretOk = same(clientSecret, CLIENT_SECRET);
            if (!(idOk && secretOk)) {
                throw new ApiError(403, 1, "Client authentication failed");
            }

            String env = header(ex, "X-Project-Env");
            if (env == null) {
                env = "live";
            } else if (!env.equals("dev") && !env.equals("live")) {
                throw new Invalid(List.of(item("X-Project-Env", "header", "ENUM", "must be one of dev, live")));
            }

            Component c = find(ref);
            if (c == null) {
                throw new ApiError(404, 2, "No component has this name, tag or uuid");
            }

            if (c.requiresAuth()) {
                String token = header(ex, "X-Auth-Token");
                if (token == null || token.isEmpty()) {
                    throw new ApiError(401, 1, "This component requires an X-Auth-Token",
                            Map.of("WWW-Authenticate", "Bearer realm=\"v2\""));
                }
                boolean ok = same(token, c.token());
                String owner = ISSUED.get(token);
                if (owner != null && (owner.equals(c.uuid()) || variants.contains("fault-token-any-component"))) {
                    ok = true;
                }
                if (!ok) {
                    throw new ApiError(403, 2, "The X-Auth-Token is not valid for this component");
                }
            }

            if (method.equals("GET")) {
                if (raw.length > 0) {
                    List<Map<String, Object>> items = validate(c, parseBody(raw));
                    if (!items.isEmpty()) {
                        throw new Invalid(items);
                    }
                }
                Claim claim = CLAIMS.get(claimKey(c, env));
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("component", componentView(c));
                body.put("environment", env);
                body.put("claim", claim == null ? null : claimView(claim));
                return Answer.json(200, body, Map.of());
            }

            String type = header(ex, "Content-Type");
            if (type != null && !type.trim().toLowerCase(Locale.ROOT).matches("application/json\\s*(;.*)?")) {
                throw new ApiError(415, 0, "Content-Type '" + type.trim() + "' is not supported; use application/json");
            }
            Object body = parseBody(raw);
            List<Map<String, Object>> items = new ArrayList<>();
            String modelUuid = variants.contains("model-header") ? header(ex, "X-Model-Uuid") : query(ex).get("model_uuid");
            String where = variants.contains("model-header") ? "header" : "query";
            String field = variants.contains("model-header") ? "X-Model-Uuid" : "model_uuid";
            if (modelUuid == null || modelUuid.isEmpty()) {
                items.add(item(field, where, "REQUIRED", "is required"));
            } else if (!UUID_FORM.matcher(modelUuid).matches()) {
                items.add(item(field, where, "FORMAT", "must be a uuid"));
            }
            items.addAll(validate(c, body));
            if (!items.isEmpty()) {
                throw new Invalid(items);
            }
            Model model = null;
            for (Model candidate : c.models()) {
                if (candidate.uuid().equals(modelUuid.toLowerCase(Locale.ROOT))) {
                    model = candidate;
                }
            }
            if (model == null) {
                throw new ApiError(409, 1, "The component has no model with this uuid");
            }
            Claim replaced = CLAIMS.put(claimKey(c, env), new Claim(model, Instant.now().truncatedTo(ChronoUnit.MILLIS)));
            byte[] t = new byte[16];
            RANDOM.nextBytes(t);
            String token = "jv-issued-" + HexFormat.of().formatHex(t);
            ISSUED.put(token, c.uuid());
            Map<String, Object> authorization = new LinkedHashMap<>();
            authorization.put("component_uuid", c.uuid());
            authorization.put("environment", env);
            authorization.put("model_uuid", model.uuid());
            authorization.put("replaced_model_uuid", replaced == null ? null : replaced.model().uuid());
            authorization.put("access_token", token);
            authorization.put("token_type", "Bearer");
            authorization.put("expires_in", 3600);
            return Answer.json(201, Map.of("authorization", authorization),
                    Map.of("Location", "/v2/api/component/" + c.uuid() + "/auth"));
        }
    }

    static Map<String, Object> claimView(Claim claim) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("model_uuid", claim.model().uuid());
        m.put("model_name", claim.model().name());
        m.put("since", claim.since().toString());
        return m;
    }

    // --- main -------------------------------------------------------------------------------

    static void usage(String problem) {
        System.err.println("error: " + problem);
        System.err.println("usage: java Server.java [--port 0] [--rate-limit N] [--variant NAME ...] [--list-variants]");
        System.exit(2);
    }

    public static void main(String[] args) throws IOException {
        int port = 0;
        Set<String> chosen = new LinkedHashSet<>();
        String fromEnv = System.getenv("INDEP_VARIANTS");
        if (fromEnv != null) {
            for (String v : fromEnv.split(",")) {
                if (!v.isBlank()) {
                    chosen.add(v.trim());
                }
            }
        }
        for (int k = 0; k < args.length; k++) {
            switch (args[k]) {
                case "--port", "--rate-limit", "--variant" -> {
                    if (k + 1 >= args.length) {
                        usage(args[k] + " needs a value");
                    }
                    String value = args[++k];
                    try {
                        switch (args[k - 1]) {
                            case "--port" -> port = Integer.parseInt(value);
                            case "--rate-limit" -> rateLimit = Integer.parseInt(value);
                            default -> chosen.add(value);
                        }
                    } catch (NumberFormatException e) {
                        usage(args[k - 1] + " takes a whole number, not `" + value + "`");
                    }
                }
                case "--list-variants" -> {
                    VARIANTS.forEach((name, what) -> System.out.println(name + ": " + what));
                    return;
                }
                default -> usage("unknown argument `" + args[k] + "`");
            }
        }
        if (port < 0 || port > 65535 || rateLimit < 0) {
            usage("--port takes 0 to 65535 and --rate-limit 0 or more");
        }
        List<String> unknown = chosen.stream().filter(v -> !VARIANTS.containsKey(v)).toList();
        if (!unknown.isEmpty()) {
            usage("unknown variant(s) " + String.join(", ", unknown) + "; valid: " + String.join(", ", VARIANTS.keySet()));
        }
        variants = Set.copyOf(chosen);

        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 256);
        var context = server.createContext("/v2/api/", new Api());
        context.getFilters().add(new RateLimitFilter());
        server.setExecutor(Executors.newFixedThreadPool(32));
        server.start();
        System.out.println("listening on http://127.0.0.1:" + server.getAddress().getPort());
        System.out.flush();
    }
}
