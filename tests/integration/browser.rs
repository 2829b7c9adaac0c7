//! `othello serve` in a real browser (Debian's Chromium through chromium-driver, by WebDriver):
//! sign in, upload, play a whole game against the engine by clicking, and watch a scrimmage live in
//! a second browser until its end; a hostile program's text shows as text. Under `CI=true` a missing
//! browser fails the test; elsewhere it says loudly that it did not run. The pages' screenshots
//! are left in `target/browser-screenshots/` to be looked at.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;

use super::server::{add_students, init, serve};
use crate::common;

/// chromedriver, if this machine has it (CI=true: it must).
fn driver() -> Option<PathBuf> {
    let found = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]
        .iter()
        .map(PathBuf::from)
        .find(|path| path.is_file());
    if found.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "no chromedriver: the browser test needs Debian's chromium and chromium-driver (.ci/run installs them)"
        );
        eprintln!("NOT RUN: no chromedriver on this machine (apt-get install chromium chromium-driver)");
    }
    found
}

/// A free port on loopback.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A headless Chromium session on `driver`'s WebDriver.
async fn browser(webdriver: &str) -> Client {
    let mut capabilities = serde_json::Map::new();
    capabilities.insert(
        "goog:chromeOptions".to_string(),
        json!({"args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,1000", "--disable-dev-shm-usage"]}),
    );
    let start = Instant::now();
    loop {
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        match ClientBuilder::new(connector)
            .capabilities(capabilities.clone())
            .connect(webdriver)
            .await
        {
            Ok(client) => return client,
            Err(error) if start.elapsed() < Duration::from_secs(60) => {
                let _ = error;
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            Err(error) => panic!("no browser session from chromedriver: {error}"),
        }
    }
}

async fn screenshot(client: &Client, name: &str) {
    let folder = Path::new(env!("CARGO_TARGET_TMPDIR")).join("../browser-screenshots");
    std::fs::create_dir_all(&folder).unwrap();
    let png = client.screenshot().await.unwrap();
    std::fs::write(folder.join(format!("{name}.png")), png).unwrap();
}

/// Clicks the element `css` finds.
async fn click(client: &Client, css: &str) {
    client.find(Locator::Css(css)).await.unwrap().click().await.unwrap();
}

async fn text(client: &Client, css: &str) -> String {
    client.find(Locator::Css(css)).await.unwrap().text().await.unwrap()
}

/// Waits until the element's text satisfies `done` (at most `within`).
async fn wait_text(client: &Client, css: &str, within: Duration, done: impl Fn(&str) -> bool) -> String {
    let start = Instant::now();
    loop {
        let now = match client.find(Locator::Css(css)).await {
            Ok(element) => element.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        };
        if done(&now) {
            return now;
        }
        if start.elapsed() > within {
            let moves = client
                .find_all(Locator::Css("#moves div"))
                .await
                .map(|m| m.len())
                .unwrap_or(0);
            let url = client.current_url().await.unwrap();
            let cookie = client
                .get_named_cookie("othello_session")
                .await
                .map(|c| c.value().to_string())
                .unwrap_or_default();
            let api = crate::common::http::get(
                &format!("{}:{}", url.host_str().unwrap(), url.port().unwrap()),
                &format!("/api{}", url.path()),
                Some(&format!("othello_session={cookie}")),
            );
            panic!(
                "{css} still says {now:?} after {within:?}; the page shows {moves} moves; the API: {}",
                api.body
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn sign_in(client: &Client, address: &str, name: &str, password: &str) {
    sign_in_as(client, address, name, password).await;
    wait_text(client, "header", Duration::from_secs(30), |t| t.contains(name)).await;
}

/// Fills the sign-in form and sends it.
async fn sign_in_as(client: &Client, address: &str, name: &str, password: &str) {
    client.goto(&format!("http://{address}/login")).await.unwrap();
    client
        .find(Locator::Css("input[name=name]"))
        .await
        .unwrap()
        .send_keys(name)
        .await
        .unwrap();
    client
        .find(Locator::Css("input[name=password]"))
        .await
        .unwrap()
        .send_keys(password)
        .await
        .unwrap();
    click(client, "button[type=submit]").await;
}

async fn upload(client: &Client, form: &str, file: &Path) -> String {
    client
        .find(Locator::Css("#upload select[name=form]"))
        .await
        .unwrap()
        .select_by_value(form)
        .await
        .unwrap();
    client
        .find(Locator::Css("#upload input[name=file]"))
        .await
        .unwrap()
        .send_keys(&file.display().to_string())
        .await
        .unwrap();
    // The page reloads after the verdict to list the version: a mark left on this page tells when
    // the next one has come, so nothing is asked of a page on its way out.
    client.execute("window.beforeReload = true", vec![]).await.unwrap();
    click(client, "#upload button").await;
    wait_text(client, "#upload-verdict", Duration::from_secs(60), |t| {
        t.starts_with("Version")
    })
    .await
}

/// Waits for the reload that follows an upload's verdict.
async fn wait_reload(client: &Client) {
    let start = Instant::now();
    while client
        .execute(
            "return window.beforeReload === true || document.readyState !== 'complete'",
            vec![],
        )
        .await
        .map_or(true, |stale| stale != json!(false))
    {
        assert!(start.elapsed() < Duration::from_secs(30), "no reload after the upload");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Starts a game from the home page's form: its id, from the page it goes to.
async fn start_game(client: &Client, address: &str, black: &str, white: &str) -> String {
    client.goto(&format!("http://{address}/")).await.unwrap();
    for (side, value) in [("black", black), ("white", white)] {
        client
            .find(Locator::Css(&format!("#new-game select[name={side}]")))
            .await
            .unwrap()
            .select_by_value(value)
            .await
            .unwrap();
    }
    click(client, "#new-game button").await;
    let start = Instant::now();
    loop {
        let url = client.current_url().await.unwrap();
        if let Some(id) = url.path().strip_prefix("/games/") {
            return id.to_string();
        }
        // Between the pages, there is neither.
        let error = match client.find(Locator::Css("#new-game-error")).await {
            Ok(element) => element.text().await.unwrap_or_default(),
            Err(_) => String::new(),
        };
        assert!(error.is_empty(), "the game was refused: {error}");
        assert!(start.elapsed() < Duration::from_secs(30), "no game page");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[test]
fn in_a_browser_a_student_signs_in_uploads_plays_the_engine_by_clicking_and_watches_a_scrimmage_live() {
    let Some(driver) = driver() else { return };
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let teacher = init(&data);
    let students = add_students(&data, &["ann", "bob"]);
    let server = serve(&data);
    let address = server.address.clone();
    let port = free_port();
    let mut command = common::dies_with_test(std::process::Command::new(&driver));
    command
        .arg(format!("--port={port}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let _driver = common::spawn(&mut command);
    let webdriver = format!("http://127.0.0.1:{port}");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let ann = browser(&webdriver).await;
        // A wrong password is refused on the page, as text.
        sign_in_as(&ann, &address, "ann", "not-her-password").await;
        wait_text(&ann, ".error", Duration::from_secs(30), |t| {
            t.contains("wrong name or password")
        })
        .await;
        screenshot(&ann, "0-sign-in-refused").await;
        sign_in(&ann, &address, "ann", &students[0].1).await;
        screenshot(&ann, "1-home").await;

        // Uploads: a good one, and one whose error message is markup (it must show as text).
        let good = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/players/quickmove_player.py");
        let verdict = upload(&ann, "quickmove", &good).await;
        assert!(verdict.contains(": ok: "), "{verdict}");
        // "Version N: ok: ..."
        let ann_version: i64 = verdict
            .strip_prefix("Version ")
            .and_then(|rest| rest.split(':').next())
            .and_then(|id| id.parse().ok())
            .unwrap_or_else(|| panic!("{verdict}"));
        let hostile = dir.path().join("hostile.py");
        // Slow to fail, and sent at once: the reload that lists the first version must not wipe
        // the second's verdict (regression: it did when a check took over 1.5 s).
        std::fs::write(
            &hostile,
            "import time\ntime.sleep(2)\nraise Exception('<img src=x onerror=\"document.title=1\"><b>bold</b>')\n",
        )
        .unwrap();
        let verdict = upload(&ann, "strategy", &hostile).await;
        assert!(verdict.contains("<img src=x"), "the markup shows as text: {verdict}");
        wait_reload(&ann).await;
        let listed = text(&ann, "table").await;
        assert!(listed.contains("<b>bold</b>"), "{listed}");
        assert!(
            ann.find(Locator::Css("table b")).await.is_err(),
            "no markup made it into the page"
        );
        assert_ne!(ann.title().await.unwrap(), "1");
        screenshot(&ann, "2-home-after-uploads").await;

        // A whole game against the engine, by clicking marked squares.
        let game = start_game(&ann, &address, "me", "engine:1").await;
        let mut clicks = 0;
        loop {
            let status = wait_text(&ann, "#status", Duration::from_secs(60), |t| {
                t.starts_with("Your move") || t.starts_with("Over")
            })
            .await;
            if status.starts_with("Over") {
                break;
            }
            if clicks == 3 {
                screenshot(&ann, "3-game-in-progress").await;
            }
            let before = ann.find_all(Locator::Css("#moves div")).await.unwrap().len();
            click(&ann, "button.cell.legal").await;
            clicks += 1;
            // The click is answered: the move list grows.
            let start = Instant::now();
            while ann.find_all(Locator::Css("#moves div")).await.unwrap().len() <= before {
                assert!(start.elapsed() < Duration::from_secs(30), "the click was not played");
                tokio::time::sleep(Duration::from_millis(30)).await;
            }
            assert!(clicks <= 40);
        }
        assert!(clicks >= 5, "a whole game takes more than {clicks} moves");
        let status = text(&ann, "#status").await;
        assert!(status.contains("black") && status.contains("white"), "{status}");
        screenshot(&ann, "4-game-over").await;
        let api = crate::common::http::get(
            &address,
            &format!("/api/games/{game}"),
            Some(&format!(
                "othello_session={}",
                ann.get_named_cookie("othello_session").await.unwrap().value()
            )),
        )
        .json();
        assert_eq!(api["status"], "finished");
        let shown = ann.find_all(Locator::Css("#moves div")).await.unwrap().len();
        assert_eq!(shown, api["moves"].as_array().unwrap().len());
        // Its replay, move by move.
        ann.goto(&format!("http://{address}/games/{game}/replay"))
            .await
            .unwrap();
        wait_text(&ann, "#label", Duration::from_secs(30), |t| t == "start").await;
        click(&ann, "#last").await;
        screenshot(&ann, "5-replay").await;

        // A scrimmage of ann's program against the engine, watched live by the teacher.
        let watcher = browser(&webdriver).await;
        sign_in(&watcher, &address, "teacher", &teacher).await;
        let version = crate::common::http::get(
            &address,
            "/api/programs",
            Some(&format!(
                "othello_session={}",
                ann.get_named_cookie("othello_session").await.unwrap().value()
            )),
        )
        .json()
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["passed"] == true)
        .unwrap()["id"]
            .to_string();
        let scrimmage = start_game(&ann, &address, &version, "engine:6").await;
        watcher.goto(&format!("http://{address}/games")).await.unwrap();
        screenshot(&watcher, "6-games-list").await;
        watcher
            .goto(&format!("http://{address}/games/{scrimmage}"))
            .await
            .unwrap();
        let (mut counts, mut clock_ran) = (Vec::new(), false);
        let start = Instant::now();
        loop {
            // The side to move's clock runs on the page between moves.
            for side in ["#black", "#white"] {
                clock_ran |= text(&watcher, &format!("{side} .thinking"))
                    .await
                    .starts_with("this move: ");
            }
            let count = watcher.find_all(Locator::Css("#moves div")).await.unwrap().len();
            if counts.last() != Some(&count) {
                counts.push(count);
            }
            if counts.len() == 4 {
                screenshot(&watcher, "7-watching-live").await;
            }
            if text(&watcher, "#status").await.starts_with("Over") {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "the scrimmage did not end: {counts:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(
            counts.len() >= 5,
            "the page followed the game move by move, not only its end: {counts:?}"
        );
        assert!(clock_ran, "the clock of the side to move ran on the page");
        screenshot(&watcher, "8-watched-to-its-end").await;

        // The teacher starts a tournament of the class (bob uploads too) and follows its standings.
        let bob = super::server::sign_in(&address, "bob", &students[1].1);
        let program = std::fs::read(&good).unwrap();
        assert_eq!(
            super::server::upload(&address, &bob, "quickmove", "b.py", &program).json()["passed"],
            true
        );
        // The class page: the teacher opens bob's programs to the class with a tick.
        watcher.goto(&format!("http://{address}/class")).await.unwrap();
        click(&watcher, "#class input.open[data-student=bob]").await;
        let teacher_cookie = format!(
            "othello_session={}",
            watcher.get_named_cookie("othello_session").await.unwrap().value()
        );
        let start = Instant::now();
        while crate::common::http::get(&address, "/api/students", Some(&teacher_cookie)).json()[1]["open"] != true {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "the tick did not open bob's programs"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        screenshot(&watcher, "9-class").await;
        watcher.goto(&format!("http://{address}/")).await.unwrap();
        screenshot(&watcher, "9-teacher-home").await;
        watcher
            .find(Locator::Css("#new-tournament input[name=name]"))
            .await
            .unwrap()
            .send_keys("Lab 6 trial")
            .await
            .unwrap();
        let rounds = watcher
            .find(Locator::Css("#new-tournament input[name=rounds]"))
            .await
            .unwrap();
        rounds.clear().await.unwrap();
        rounds.send_keys("4").await.unwrap();
        click(&watcher, "#new-tournament option[value=course-server]").await;
        click(&watcher, "#new-tournament button").await;
        wait_text(&watcher, "#tournament-status", Duration::from_secs(30), |t| {
            t.contains("games played")
        })
        .await;
        screenshot(&watcher, "10-tournament-running").await;
        // The page follows it: the standings it shows change while it runs.
        let mut seen = Vec::new();
        let start = Instant::now();
        loop {
            let status = text(&watcher, "#tournament-status").await;
            let standings = text(&watcher, "#standings").await;
            if seen.last() != Some(&standings) {
                seen.push(standings);
            }
            if status.contains("finished") {
                break;
            }
            assert!(start.elapsed() < Duration::from_secs(180), "{status}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert!(
            seen.len() >= 2,
            "the standings were shown before the end, and again after: {seen:?}"
        );
        let standings = text(&watcher, "#standings").await;
        assert!(standings.contains("ann") && standings.contains("bob"), "{standings}");
        assert!(
            standings.contains("cumulative"),
            "the course server's tie-break: {standings}"
        );
        assert!(
            text(&watcher, "#tournament-scoring")
                .await
                .contains("as the course's server scored")
        );
        screenshot(&watcher, "11-tournament-finished").await;

        // The ladder, started and stopped with its button.
        watcher.goto(&format!("http://{address}/ladder")).await.unwrap();
        click(&watcher, "#ladder-switch button").await;
        wait_text(&watcher, "#ladder-status", Duration::from_secs(120), |t| {
            t.starts_with("Running") && !t.contains(" 0 pairs played")
        })
        .await;
        screenshot(&watcher, "12-ladder").await;
        click(&watcher, "#ladder-switch button").await;
        wait_text(&watcher, "#ladder-status", Duration::from_secs(30), |t| {
            t.starts_with("Stopped")
        })
        .await;
        let ratings = text(&watcher, "table.ladder").await;
        assert!(ratings.contains("ann") && ratings.contains("±"), "{ratings}");

        // The teacher's other pages.
        for (path, name) in [
            ("/students/ann".to_string(), "13-student"),
            (format!("/programs/{ann_version}"), "14-version"),
            ("/queue".to_string(), "15-queue"),
            ("/audit".to_string(), "16-audit"),
        ] {
            watcher.goto(&format!("http://{address}{path}")).await.unwrap();
            screenshot(&watcher, name).await;
        }
        let audit = text(&watcher, "#audit").await;
        assert!(
            audit.contains("started the ladder") && audit.contains("stopped the ladder"),
            "{audit}"
        );
        // A lab check defined on its page, run on both students' versions.
        watcher.goto(&format!("http://{address}/checks")).await.unwrap();
        for (field, value) in [("name", "Lab 4 trial"), ("games", "4"), ("pass", "0.5")] {
            let css = format!("#new-check [name={field}]");
            let input = watcher.find(Locator::Css(&css)).await.unwrap();
            input.clear().await.unwrap();
            input.send_keys(value).await.unwrap();
        }
        click(&watcher, "#new-check button").await;
        wait_text(&watcher, "table.check", Duration::from_secs(60), |t| {
            t.contains("ann") && t.contains("bob")
        })
        .await;
        let start = Instant::now();
        while !text(&watcher, "table.check").await.contains("4 of 4") {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the check's games did not end"
            );
            tokio::time::sleep(Duration::from_millis(500)).await;
            watcher.refresh().await.unwrap();
        }
        screenshot(&watcher, "18-checks").await;
        // The class table with each student's best run and ladder rating.
        watcher.goto(&format!("http://{address}/class")).await.unwrap();
        let class = text(&watcher, "#class").await;
        assert!(
            class.contains(" ± ") && class.contains("Lab 4 trial (best run)"),
            "{class}"
        );
        screenshot(&watcher, "17-class-rated").await;
        watcher.close().await.unwrap();
        ann.close().await.unwrap();
    });
}
