//! `othello serve` over HTTP on 127.0.0.1: its data folder, accounts, sign-in by the API and by
//! the form, the 401s, 403s and 4xx errors in JSON, and a SIGKILL that loses nothing.

use std::io::{BufRead, BufReader};
use std::path::Path;

use serde_json::json;

use crate::common::{self, http};

/// `othello serve init`: the teacher's password, from what it prints.
pub(crate) fn init(data: &Path) -> String {
    let output = common::othello(["serve", "init", "--data"]).arg(data).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let password = stdout
        .lines()
        .find_map(|line| line.strip_prefix("password: "))
        .unwrap_or_else(|| panic!("no password in {stdout:?}"));
    assert!(stdout.contains("name: teacher"), "{stdout}");
    password.to_string()
}

/// `othello serve add-students`: each name's password.
pub(crate) fn add_students(data: &Path, names: &[&str]) -> Vec<(String, String)> {
    let roster = data.with_extension("roster.txt");
    std::fs::write(&roster, names.join("\n") + "\n").unwrap();
    let output = common::othello(["serve", "add-students", "--data"])
        .arg(data)
        .arg(&roster)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("name,password"));
    lines
        .map(|line| {
            let (name, password) = line.split_once(',').unwrap();
            (name.to_string(), password.to_string())
        })
        .collect()
}

/// A running server and the address it listens on (a port the system chose).
pub(crate) struct Server {
    pub(crate) process: common::Running,
    pub(crate) address: String,
}

pub(crate) fn serve(data: &Path) -> Server {
    serve_with(data, &[])
}

/// A server with more options.
pub(crate) fn serve_with(data: &Path, options: &[&str]) -> Server {
    let mut command = common::othello_std();
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--data"])
        .arg(data)
        .args(options)
        .stdout(std::process::Stdio::piped());
    let mut process = common::spawn(&mut command);
    let mut line = String::new();
    BufReader::new(process.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let address = line
        .trim()
        .strip_prefix("listening on http://")
        .unwrap_or_else(|| panic!("not the first line expected: {line:?}"))
        .to_string();
    assert!(address.starts_with("127.0.0.1:"), "{address}");
    Server { process, address }
}

/// A server with one student, ann: its folder (kept while it runs), the server, and the roster's
/// names and passwords.
pub(crate) fn with_ann() -> (tempfile::TempDir, Server, Vec<(String, String)>) {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    init(&data);
    let students = add_students(&data, &["ann"]);
    let server = serve(&data);
    (dir, server, students)
}

/// A form's fields posted with a cookie header.
pub(crate) fn post_form(address: &str, path: &str, cookie: &str, fields: &str) -> http::Reply {
    http::request(
        address,
        "POST",
        path,
        &[
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Cookie", cookie),
        ],
        fields.as_bytes(),
    )
}

/// Signs in through the API: the session token.
pub(crate) fn sign_in(address: &str, name: &str, password: &str) -> String {
    let reply = http::json(
        address,
        "POST",
        "/api/session",
        None,
        &json!({"name": name, "password": password}),
    );
    assert_eq!(reply.status, 200, "{reply:?}");
    let cookie = reply
        .headers
        .iter()
        .find(|(key, _)| key.eq_ignore_ascii_case("set-cookie"))
        .map(|(_, value)| value.clone())
        .unwrap();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    reply.cookie("othello_session").unwrap()
}

#[test]
fn accounts_sign_in_and_a_sigkill_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let teacher = init(&data);
    let students = add_students(&data, &["ann", "bob"]);
    assert_eq!(
        students.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        ["ann", "bob"]
    );
    assert_ne!(students[0].1, students[1].1, "each account its own password");
    let mut server = serve(&data);
    let address = server.address.clone();
    assert_eq!(http::get(&address, "/healthz", None).json(), json!({"ok": true}));
    // Nobody is anybody before signing in, and a wrong password is refused in JSON.
    let me = http::get(&address, "/api/me", None);
    assert_eq!((me.status, me.json()["error"].as_str()), (401, Some("sign in first")));
    let wrong = http::json(
        &address,
        "POST",
        "/api/session",
        None,
        &json!({"name": "ann", "password": "nope"}),
    );
    assert_eq!(wrong.status, 401);
    assert_eq!(wrong.json()["error"], "wrong name or password");
    let unknown = http::json(
        &address,
        "POST",
        "/api/session",
        None,
        &json!({"name": "zed", "password": "x"}),
    );
    assert_eq!(
        unknown.json(),
        wrong.json(),
        "no account and a wrong password look alike"
    );
    let session = sign_in(&address, "ann", &students[0].1);
    let me = http::json(&address, "GET", "/api/me", Some(&session), &json!({}));
    assert_eq!(me.json(), json!({"name": "ann", "role": "student"}));
    let teacher_session = sign_in(&address, "teacher", &teacher);
    let me = http::json(&address, "GET", "/api/me", Some(&teacher_session), &json!({}));
    assert_eq!(me.json()["role"], "teacher");
    // Killed outright, started again: the accounts and the session are all there.
    unsafe { libc::kill(server.process.id() as i32, libc::SIGKILL) };
    let _ = server.process.wait();
    let server = serve(&data);
    let me = http::json(&server.address, "GET", "/api/me", Some(&session), &json!({}));
    assert_eq!(me.json()["name"], "ann");
    sign_in(&server.address, "bob", &students[1].1);
    // Signing out ends the session.
    let out = http::json(&server.address, "DELETE", "/api/session", Some(&session), &json!({}));
    assert_eq!(out.status, 200);
    assert_eq!(
        http::json(&server.address, "GET", "/api/me", Some(&session), &json!({})).status,
        401
    );
}

#[test]
fn a_password_is_changed_by_its_owner_only_knowing_the_old_one() {
    let (_dir, server, students) = with_ann();
    let address = &server.address;
    let session = sign_in(address, "ann", &students[0].1);
    let change = |old: &str, new: &str| {
        http::json(
            address,
            "POST",
            "/api/password",
            Some(&session),
            &json!({"old": old, "new": new}),
        )
    };
    assert_eq!(change("not it", "a new password").status, 403);
    let short = change(&students[0].1, "short");
    assert_eq!(
        (short.status, short.json()["error"].as_str()),
        (400, Some("a password has 8 to 128 characters"))
    );
    assert_eq!(change(&students[0].1, "a new password").status, 200);
    sign_in(address, "ann", "a new password");
    let old = http::json(
        address,
        "POST",
        "/api/session",
        None,
        &json!({"name": "ann", "password": students[0].1}),
    );
    assert_eq!(old.status, 401);
    // Without a session there is no one to change.
    let anonymous = http::json(
        address,
        "POST",
        "/api/password",
        None,
        &json!({"old": "x", "new": "yyyyyyyy"}),
    );
    assert_eq!(anonymous.status, 401);
}

#[test]
fn forms_need_their_token_and_bad_requests_get_json_errors() {
    let (_dir, server, students) = with_ann();
    let address = &server.address;
    // The home page sends a stranger to sign in.
    let home = http::get(address, "/", None);
    assert_eq!((home.status, home.header("location")), (303, Some("/login")));
    let form = http::get(address, "/login", None);
    assert_eq!(form.status, 200);
    let token = form.cookie("othello_form").unwrap();
    assert!(form.body.contains(&format!("value=\"{token}\"")), "{}", form.body);
    let post = |cookie: &str, fields: String| post_form(address, "/login", cookie, &fields);
    let fields = |csrf: &str| format!("name=ann&password={}&csrf={csrf}", students[0].1);
    // Another site's form has no way to the cookie's token.
    let forged = post(&format!("othello_form={token}"), fields("forged"));
    assert_eq!(forged.status, 403);
    assert!(forged.json()["error"].as_str().unwrap().contains("token"));
    let signed = post(&format!("othello_form={token}"), fields(&token));
    assert_eq!((signed.status, signed.header("location")), (303, Some("/")));
    let session = signed.cookie("othello_session").unwrap();
    let cookie = format!("othello_session={session}");
    let home = http::get(address, "/", Some(&cookie));
    assert!(
        home.body.contains("<span class=\"muted\">ann (student)</span>"),
        "{}",
        home.body
    );
    // The pages run the server's own script only.
    let policy = home.header("content-security-policy").unwrap();
    assert!(
        policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"),
        "{policy}"
    );
    assert!(!home.body.contains("<script>"), "no inline script");
    // A request another site's page sent is refused, whatever it carries.
    for (header, value) in [("Origin", "http://evil.example"), ("Sec-Fetch-Site", "cross-site")] {
        let forged = http::request(
            address,
            "POST",
            "/api/games",
            &[
                ("Content-Type", "application/json"),
                ("Cookie", &cookie),
                (header, value),
            ],
            br#"{"black":"me","white":"random"}"#,
        );
        assert_eq!(forged.status, 403, "{header}: {forged:?}");
        assert!(forged.json()["error"].as_str().unwrap().contains("another site"));
    }
    // Signing out by a form without the session's token is refused; with it, done.
    let out = |csrf: &str| post_form(address, "/logout", &cookie, &format!("csrf={csrf}"));
    assert_eq!(out("forged").status, 403);
    let csrf = home
        .body
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert_eq!(out(csrf).status, 303);
    assert_eq!(http::get(address, "/api/me", Some(&cookie)).status, 401);
    // Not JSON, not the fields asked, too big, no such page: 4xx with a JSON error each.
    let not_json = http::request(
        address,
        "POST",
        "/api/session",
        &[("Content-Type", "application/json")],
        b"{",
    );
    assert!((400..500).contains(&not_json.status), "{not_json:?}");
    assert!(not_json.json()["error"].is_string());
    let missing = http::json(address, "POST", "/api/session", None, &json!({"name": "ann"}));
    assert!((400..500).contains(&missing.status) && missing.json()["error"].is_string());
    let big = vec![b'x'; 100_000];
    let too_big = http::request(
        address,
        "POST",
        "/api/session",
        &[("Content-Type", "application/json")],
        &big,
    );
    assert_eq!(too_big.status, 413, "{too_big:?}");
    let nowhere = http::get(address, "/nowhere", None);
    assert_eq!(
        (nowhere.status, nowhere.json()["error"].as_str()),
        (404, Some("no such page: /nowhere"))
    );
}

#[test]
fn guessing_a_password_is_braked() {
    let (_dir, server, students) = with_ann();
    let guess = |password: &str| {
        http::json(
            &server.address,
            "POST",
            "/api/session",
            None,
            &json!({"name": "ann", "password": password}),
        )
        .status
    };
    let statuses: Vec<u16> = (0..6).map(|i| guess(&format!("guess {i}"))).collect();
    assert_eq!(statuses, [401, 401, 401, 401, 401, 429]);
    assert_eq!(
        guess(&students[0].1),
        429,
        "even the right password waits out the minute"
    );
}

#[test]
fn a_data_folder_is_made_once_and_a_bad_roster_adds_nobody() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    init(&data);
    common::othello(["serve", "init", "--data"])
        .arg(&data)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("already holds a server's data"));
    let roster = dir.path().join("roster.txt");
    std::fs::write(&roster, "carl\n<script>\n").unwrap();
    common::othello(["serve", "add-students", "--data"])
        .arg(&data)
        .arg(&roster)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("bad name \"<script>\""));
    add_students(&data, &["carl"]);
    std::fs::write(&roster, "dora\ncarl\n").unwrap();
    common::othello(["serve", "add-students", "--data"])
        .arg(&data)
        .arg(&roster)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("the name \"carl\" is taken"));
    // All or none: dora was not added with the refused roster.
    add_students(&data, &["dora"]);
    common::othello(["serve", "--data"])
        .arg(dir.path().join("nothing"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("holds no server's data"));
}

/// A multipart body of `form` and a file named `name` holding `bytes`, and its content type.
pub(crate) fn upload_body(form: &str, name: &str, bytes: &[u8]) -> (Vec<u8>, String) {
    let boundary = "othello-test-boundary-1b3c";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"form\"\r\n\r\n{form}\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\nContent-Type: text/x-python\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (body, format!("multipart/form-data; boundary={boundary}"))
}

pub(crate) fn upload(address: &str, session: &str, form: &str, name: &str, bytes: &[u8]) -> http::Reply {
    let (body, content_type) = upload_body(form, name, bytes);
    let cookie = format!("othello_session={session}");
    http::request(
        address,
        "POST",
        "/api/programs",
        &[("Content-Type", &content_type), ("Cookie", &cookie)],
        &body,
    )
}

/// The course's example player (fixtures/players) in `form`, whole in one file as an upload is:
/// the quickmove, the argv program that prints its move, or the strategy with the module it
/// imports pasted in.
pub(crate) fn example_program(form: &str) -> Vec<u8> {
    let fixture = |name: &str| {
        std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures/players")
                .join(name),
        )
        .unwrap()
    };
    let quickmove = fixture("quickmove_player.py");
    match form {
        "quickmove" => quickmove,
        "argv" => [
            quickmove,
            b"\nimport sys\nprint(quickMove(sys.argv[1], sys.argv[2]))\n".to_vec(),
        ]
        .concat(),
        "strategy" => [
            quickmove,
            fixture("strategy_player.py")
                .split(|&b| b == b'\n')
                .filter(|line| !line.starts_with(b"from quickmove_player"))
                .collect::<Vec<_>>()
                .join(&b'\n'),
        ]
        .join(&b'\n'),
        other => panic!("no example program of form {other}"),
    }
}

#[test]
fn uploads_are_checked_kept_and_shown_to_their_owner_only() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let teacher = init(&data);
    let students = add_students(&data, &["ann", "bob"]);
    let server = serve(&data);
    let address = &server.address;
    let ann = sign_in(address, "ann", &students[0].1);
    let bob = sign_in(address, "bob", &students[1].1);
    let good = example_program("quickmove");
    // Its name is not where it goes: the version's id is.
    let first = upload(address, &ann, "quickmove", "../../escaped.py", &good);
    assert_eq!(first.status, 200, "{first:?}");
    let first = first.json();
    assert_eq!(first["owner"], "ann");
    assert_eq!(first["passed"], true, "{first}");
    assert!(first["verdict"].as_str().unwrap().starts_with("ok: "), "{first}");
    assert!(!dir.path().join("escaped.py").exists() && !data.join("escaped.py").exists());
    // An argv program, whole in its one file.
    let argv = upload(address, &ann, "argv", "argv.py", &example_program("argv")).json();
    assert_eq!(argv["passed"], true, "{argv}");
    let broken = upload(address, &ann, "strategy", "mine.py", b"class Strategy(:\n").json();
    assert_eq!(broken["passed"], false, "{broken}");
    assert!(broken["verdict"].as_str().unwrap().contains("SyntaxError"), "{broken}");
    // Each form, good and failing its check: bob's strategy plays; his quickmove's illegal move and
    // his argv program's silence are its verdicts.
    let strategy = upload(address, &bob, "strategy", "s.py", &example_program("strategy")).json();
    assert_eq!(strategy["passed"], true, "{strategy}");
    let illegal = upload(
        address,
        &bob,
        "quickmove",
        "q.py",
        b"def quickMove(board, token):\n    return 0\n",
    )
    .json();
    assert_eq!(illegal["passed"], false, "{illegal}");
    assert!(
        illegal["verdict"].as_str().unwrap().contains("illegal move 0"),
        "{illegal}"
    );
    let silent = upload(address, &bob, "argv", "a.py", b"import sys\n").json();
    assert_eq!(silent["passed"], false, "{silent}");
    assert!(silent["verdict"].as_str().unwrap().contains("no move"), "{silent}");
    // What is not an upload is refused, in JSON.
    let bad_form = upload(address, &ann, "python", "x.py", &good);
    assert_eq!(bad_form.status, 400);
    assert!(bad_form.json()["error"].as_str().unwrap().contains("bad form"));
    let too_big = upload(address, &ann, "quickmove", "big.py", &vec![b'#'; (1 << 20) + 1]);
    assert!(matches!(too_big.status, 413), "{too_big:?}");
    assert_eq!(upload(address, "not-a-session", "quickmove", "x.py", &good).status, 401);
    // Each sees their own; the teacher sees all; a source is its owner's and the teacher's.
    let list = |session: &str| http::get(address, "/api/programs", Some(&format!("othello_session={session}"))).json();
    assert_eq!(list(&ann).as_array().unwrap().len(), 3);
    assert_eq!(list(&ann)[0]["id"], broken["id"], "newest first");
    assert_eq!(list(&bob).as_array().unwrap().len(), 3);
    let teacher_session = sign_in(address, "teacher", &teacher);
    assert_eq!(list(&teacher_session).as_array().unwrap().len(), 6);
    let source = |session: &str, id: &serde_json::Value| {
        http::get(
            address,
            &format!("/api/programs/{id}/source"),
            Some(&format!("othello_session={session}")),
        )
    };
    let own = source(&ann, &first["id"]);
    assert_eq!((own.status, own.body.as_bytes()), (200, good.as_slice()));
    let other = source(&bob, &first["id"]);
    assert_eq!((other.status, other.json()["error"].is_string()), (403, true));
    assert_eq!(source(&teacher_session, &first["id"]).status, 200);
    assert_eq!(source(&ann, &json!(9999)).status, 404);
    // Each upload costs a check game: ten a minute an account, then 429 (five were made above).
    let statuses: Vec<u16> = (0..6)
        .map(|_| upload(address, &ann, "python", "x.py", b"").status)
        .collect();
    assert_eq!(statuses, [400, 400, 400, 400, 400, 429]);
    assert_eq!(
        upload(address, &bob, "python", "x.py", b"").status,
        400,
        "bob has his own count"
    );
}
