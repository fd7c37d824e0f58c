// quizbot dashboard. No library and no network beyond this server's own API.
// Telegram opens the page as /app#tgWebAppData=<initData>&tgWebAppThemeParams=...; a Discord
// link opens /app#link=<token>, exchanged once for a session kept in sessionStorage.
// Every text goes into the page through textContent; only the server's SVG charts are HTML.
"use strict";
(function () {
  var STRINGS = JSON.parse(document.getElementById("strings").textContent);
  var lang = document.documentElement.lang || "en";
  var hash = new URLSearchParams(location.hash.replace(/^#/, ""));
  var query = new URLSearchParams(location.search);
  var tg = window.Telegram && window.Telegram.WebApp;

  function t(key, params) {
    var table = STRINGS[lang] || STRINGS.en;
    var text = table[key] || STRINGS.en[key] || key;
    return text.replace(/\{(\w+)\}/g, function (m, name) {
      return params && params[name] !== undefined && params[name] !== null
        ? String(params[name]) : "–";
    });
  }

  function setLanguage(code) {
    if (!STRINGS[code]) { return; }
    lang = code;
    document.documentElement.lang = code;
    document.documentElement.dir = code === "ur" ? "rtl" : "ltr";
  }

  function theme() {
    var params = (tg && tg.themeParams) || null;
    if (!params && hash.get("tgWebAppThemeParams")) {
      try { params = JSON.parse(hash.get("tgWebAppThemeParams")); } catch (e) { params = null; }
    }
    var root = document.documentElement;
    var scheme = tg && tg.colorScheme;
    if (params) {
      var map = { bg_color: "--bg", text_color: "--text", hint_color: "--hint",
                  link_color: "--link", button_color: "--accent",
                  button_text_color: "--accent-text", secondary_bg_color: "--card" };
      Object.keys(map).forEach(function (k) {
        if (/^#[0-9a-fA-F]{3,8}$/.test(params[k] || "")) { root.style.setProperty(map[k], params[k]); }
      });
      if (!scheme && params.bg_color) { scheme = luminance(params.bg_color) < 0.5 ? "dark" : "light"; }
    }
    if (scheme === "dark" || scheme === "light") { root.classList.add(scheme); }
    if (params) { readable(root); }
  }

  // Telegram's theme is taken where it keeps WCAG AA (4.5:1): its light theme's hint
  // (#999999, 2.8:1 on white), link and button (#2481cc, 4.1:1) are not, and a teacher's
  // "weakest first" line is a hint. Such a colour gives way to the page's own for the scheme.
  function readable(root) {
    var style = getComputedStyle(root);
    function value(name) { return style.getPropertyValue(name).trim(); }
    function fails(fg, grounds) {
      return grounds.some(function (bg) { return contrast(value(fg), value(bg)) < 4.5; });
    }
    ["--hint", "--link"].forEach(function (name) {
      if (fails(name, ["--bg", "--card"])) { root.style.removeProperty(name); }
    });
    if (fails("--accent-text", ["--accent"])) {
      root.style.removeProperty("--accent");
      root.style.removeProperty("--accent-text");
    }
  }

  function contrast(a, b) {  // WCAG's contrast ratio of two #rgb / #rrggbb colours
    function lum(hex) {
      var h = hex.replace("#", "");
      if (h.length === 3) { h = h.split("").map(function (c) { return c + c; }).join(""); }
      if (!/^[0-9a-fA-F]{6}/.test(h)) { return null; }
      return [0, 2, 4].map(function (i) {
        var v = parseInt(h.slice(i, i + 2), 16) / 255;
        return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
      }).reduce(function (sum, v, i) { return sum + v * [0.2126, 0.7152, 0.0722][i]; }, 0);
    }
    var x = lum(a), y = lum(b);
    if (x === null || y === null) { return 21; }  // not a colour we can judge: keep it
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
  }

  function luminance(hex) {
    var h = hex.replace("#", "");
    if (h.length === 3) { h = h.split("").map(function (c) { return c + c; }).join(""); }
    var n = parseInt(h.slice(0, 6), 16);
    return (0.299 * (n >> 16 & 255) + 0.587 * (n >> 8 & 255) + 0.114 * (n & 255)) / 255;
  }

  function initData() {
    return (tg && tg.initData) || hash.get("tgWebAppData") || "";
  }

  function hintLanguage(data) {
    try {
      var user = JSON.parse(new URLSearchParams(data).get("user") || "{}");
      var code = String(user.language_code || "").split("-")[0];
      if (STRINGS[code]) { setLanguage(code); }
    } catch (e) { /* no hint */ }
  }

  function browserLanguage() {
    // Before the API answers, the browser's own languages are the best guess (an expired
    // link's error must be read too); the page's default otherwise, its direction included.
    var wanted = navigator.languages || [navigator.language || ""];
    for (var i = 0; i < wanted.length; i++) {
      var code = String(wanted[i] || "").split("-")[0].toLowerCase();
      if (STRINGS[code]) { setLanguage(code); return; }
    }
    setLanguage(lang);
  }

  function credential() {
    var data = initData();
    if (data) { hintLanguage(data); return Promise.resolve("tma " + data); }
    var link = hash.get("link");
    if (link) {
      history.replaceState(null, "", location.pathname + location.search);
      return fetch("/api/session", { method: "POST", headers: { Authorization: "link " + link } })
        .then(function (r) { return r.ok ? r.json() : refused(r); })
        .then(function (d) { sessionStorage.setItem("quizbot.session", d.session); return "session " + d.session; });
    }
    var kept = sessionStorage.getItem("quizbot.session");
    return kept ? Promise.resolve("session " + kept) : Promise.reject("none");
  }

  // A time ("2026-12-01 13:35 UTC") is one left-to-right piece, and a name or a channel
  // keeps its own direction, inside a line of either direction (Unicode bidi isolates).
  function ltr(text) { return "\u2066" + text + "\u2069"; }
  function own(text) { return "\u2068" + text + "\u2069"; }

  // A /command with its option ("/round start"; isolated whole in a right-to-left text)
  // keeps together: at a line's end the browser would break it after its slash.
  var COMMAND = new RegExp("\u2066/[^\u2069]*\u2069|(?<![^\\s(])/[A-Za-z_]\\w*" +
    "(?: (?:start|stop|skip|last|on|off|set|remove|upload|solo|rounds)\\b)?", "g");

  // A moment (seconds since 1970) in the reader's own time zone and language, the zone
  // named ("3 Dec 2026, 18:35 GMT+5"); the server's UTC text where Intl cannot.
  function when(at, utc) {
    try {
      return new Intl.DateTimeFormat(lang, { year: "numeric", month: "short", day: "numeric",
        hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short" })
        .format(new Date(at * 1000));
    } catch (e) { return utc; }
  }

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) {
      var s = String(text), at = 0;
      s.replace(COMMAND, function (m, i) {
        if (i > at) { node.appendChild(document.createTextNode(s.slice(at, i))); }
        var cmd = document.createElement("span");
        cmd.className = "cmd";
        cmd.textContent = m;
        node.appendChild(cmd);
        at = i + m.length;
        return m;
      });
      if (at < s.length || !s) { node.appendChild(document.createTextNode(s.slice(at))); }
    }
    if (cls) { node.className = cls; }
    return node;
  }

  function chart(svg) {
    var box = el("div");
    box.innerHTML = svg; // drawn by the server, every text escaped there
    return box;
  }

  function section(title) {
    var s = el("section");
    s.appendChild(el("h2", title));
    document.getElementById("view").appendChild(s);
    return s;
  }

  // Why the page cannot show anything: an HTTP status, "expired" (a genuine sign-in, too
  // old) or "none" (opened without one: a bookmark, a browser, a forwarded address).
  function fail(status) {
    var box = document.getElementById("error");
    var key = status === "expired" ? "dashboard.signin_expired"
      : status === "none" ? "dashboard.signin_none"
      : status === "bot_gone" ? "dashboard.bot_gone"
      : status === 403 ? "dashboard.forbidden"
      : status === 503 ? "dashboard.unavailable"
      : status === 429 ? "dashboard.busy"
      : status === 401 ? "dashboard.signin"
      : status === 0 ? "dashboard.offline"  // the request never reached the server
      : "error.generic";
    box.textContent = "";
    box.appendChild(el("p", t(key)));
    if (status === 403) { box.appendChild(el("p", t("dashboard.forbidden_help"))); }
    var ways = el("p", null, "ways");
    // Not a member, or no sign-in that works: trying again cannot help (the same address
    // carries the same sign-in); going back, or opening the page from the bot, can. Without
    // a sign-in that works, one's own page cannot open either: no way back to it.
    var signedOut = status === 401 || status === "expired" || status === "none";
    if (status !== 403 && status !== "bot_gone" && !signedOut) {
      var retry = el("button", t("dashboard.retry"));
      retry.type = "button";
      retry.addEventListener("click", function () { location.reload(); });
      ways.appendChild(retry);
    }
    if (query.get("group") && !signedOut) {
      var back = el("a", t("dashboard.back"), "button");
      back.href = location.pathname + location.hash;
      ways.appendChild(back);
    }
    box.appendChild(ways);
    var title = document.getElementById("title");
    if (!title.textContent) {
      title.textContent = t(query.get("group") ? "dashboard.group_untitled" : "dashboard.title");
    }
    box.dataset.status = typeof status === "number" ? String(status)
      : status === "bot_gone" ? "403" : "401";
    box.dataset.reason = typeof status === "number" ? "" : status;
    box.hidden = false;
    document.getElementById("status").textContent = "";
    document.body.dataset.state = "error";
    box.scrollIntoView({ block: "nearest" });  // a button far down the page failed: show why
  }

  // A refused request rejects with its status (or "expired", "none"); one that never
  // reached the server (offline) or whose answer was not JSON, with an error object: 0.
  function failed(reason) {
    fail(typeof reason === "number" || reason === "expired" || reason === "none" ||
         reason === "bot_gone" ? reason : 0);
  }

  // A refusal's status; a 401 whose body says the sign-in is too old, "expired".
  // A 403 whose body says the bot left the group, "bot_gone".
  function refused(r) {
    if (r.status === 403) {
      return r.json().then(function (b) { return Promise.reject(b && b.error === "bot_gone" ? "bot_gone" : 403); },
                           function () { return Promise.reject(403); });
    }
    if (r.status !== 401) { return Promise.reject(r.status); }
    return r.json().then(function (b) { return Promise.reject(b && b.error === "expired" ? "expired" : 401); },
                         function () { return Promise.reject(401); });
  }

  function api(path, auth) {
    return fetch(path, { headers: { Authorization: auth } }).then(function (r) {
      return r.ok ? r.json() : refused(r);
    });
  }

  function renderReports(r, auth) {
    var box = section(t("dashboard.reports"));
    box.id = "reports";
    box.appendChild(el("p", r.text, "hint"));
    r.items.forEach(function (x) {
      var item = el("div", null, "miss report");
      item.dataset.report = String(x.id);
      item.appendChild(el("p", x.title + " · " + x.label + " · " + x.reason, "q"));
      item.appendChild(el("p", x.text));
      if (x.numbers) { item.appendChild(el("p", x.numbers, "hint")); }
      if (x.note) { item.appendChild(el("p", "“" + x.note + "”")); }
      item.appendChild(el("p", own(x.by) + " · " + ltr(x.at), "hint"));
      var b = el("button", t("dashboard.resolve"));
      b.type = "button";
      b.addEventListener("click", function () {
        fetch("/api/reports/" + x.id + "/resolve", { method: "POST", headers: { Authorization: auth } })
          .then(function (res) { return res.ok ? res.json() : refused(res); })
          .then(function () { b.replaceWith(el("p", t("dashboard.resolved"), "good")); })
          .catch(failed);
      });
      item.appendChild(b);
      box.appendChild(item);
    });
  }

  function renderMe(d, auth) {
    document.getElementById("title").textContent = t("dashboard.title");
    document.getElementById("who").textContent = d.user.name;
    if (d["new"]) {
      if (d.reports) { renderReports(d.reports, auth); }
      // Groups and nothing played: an organiser who hosts rounds. Their groups are their
      // point, before a welcome to their own first quiz.
      renderGroups(d);
      var w = section(t("dashboard.welcome_title"));
      w.id = "welcome";
      w.appendChild(el("p", t("dashboard.welcome")));
      if (d.summary.next) { w.appendChild(el("p", d.summary.next.text, "big-line")); }
      return;
    }
    // One screen: streak, due today, best per quiz, the suggested next quiz.
    var s = section(t("dashboard.summary"));
    s.id = "summary";
    s.appendChild(el("p", d.streak.text, "big-line"));
    s.appendChild(el("p", d.summary.due_text, "big-line"));
    if (d.summary.best.length) {
      var best = el("ul", null, "best");
      d.summary.best.forEach(function (b) {
        var li = el("li");
        li.appendChild(el("span", b.title));
        li.appendChild(el("strong", b.badge ? b.score + " " + b.badge : b.score, "score-value"));
        best.appendChild(li);
      });
      s.appendChild(el("p", t("dashboard.best"), "hint"));
      s.appendChild(best);
    }
    if (d.summary.next) { s.appendChild(el("p", d.summary.next.text, "next")); }

    var due = section(t("progress.title"));
    due.appendChild(el("p", t("dashboard.forecast"), "hint"));
    due.appendChild(chart(d.due.chart));

    var st = section(t("dashboard.calendar"));
    st.appendChild(chart(d.streak.chart));
    st.appendChild(el("p", d.sure.text, d.sure.answered ? "sure" : "hint sure"));

    if (d.topics.length) {  // the mastery map, weakest first, with "sure" per topic
      var tm = section(t("progress.topics"));
      tm.id = "topics";
      var tl = el("ul", null, "topics");
      d.topics.forEach(function (x) {
        var li = el("li", x.line);
        li.dataset.topic = x.topic;
        tl.appendChild(li);
      });
      tm.appendChild(tl);
      if (d.confident_misses.length) {
        tm.appendChild(el("p", t("progress.confident_misses"), "hint"));
        var cm = el("ul", null, "confident-misses");
        d.confident_misses.forEach(function (x) { cm.appendChild(el("li", x.line, "bad")); });
        tm.appendChild(cm);
      }
    }

    var q = section(t("dashboard.quizzes"));
    var list = el("ul");
    d.quizzes.forEach(function (x) {
      var item = el("li", x.line, x.attempts ? "score" : "hint");
      item.dataset.quiz = x.id;
      list.appendChild(item);
      if (x.chart) { item.appendChild(chart(x.chart)); }
    });
    q.appendChild(list);

    // Per quiz, folded: accuracy per question, then the misses with their explanations.
    if (d.reports) { renderReports(d.reports, auth); }
    var det = section(t("dashboard.details"));
    d.accuracy_charts.forEach(function (c) {
      var box = el("details", null, "quiz-detail");
      box.dataset.quiz = c.quiz;
      var misses = d.misses.filter(function (x) { return x.quiz === c.quiz; });
      var head = el("summary", c.title);
      if (misses.length) { head.appendChild(el("span", " · " + t("dashboard.missed", { count: misses.length }), "hint")); }
      box.appendChild(head);
      box.appendChild(chart(c.chart));
      misses.forEach(function (x) {
        var m = el("div", null, "miss");
        m.appendChild(el("p", x.text, "q"));
        m.appendChild(el("p", x.chosen_line, "bad"));
        m.appendChild(el("p", x.answer, "good"));
        m.appendChild(el("p", x.explanation));
        box.appendChild(m);
      });
      det.appendChild(box);
    });

    renderGroups(d);
  }

  // Every group the caller played or hosted a round in: the way from one group's page to
  // another's (through "Back to my progress").
  function renderGroups(d) {
    if (!d.groups.length && !d.groups_hint) { return; }
    var g = section(t("dashboard.groups"));
    g.id = "groups";
    d.groups.forEach(function (x) {
      var link = el("a", t("dashboard.group_link", { group: own(x.title) }));
      link.href = "?group=" + encodeURIComponent(x.id) + location.hash;
      g.appendChild(el("p")).appendChild(link);  // alone in its line: a thumb high
      // A group the caller manages (a teacher who neither plays nor hosts there): said.
      if (x.manages) { g.appendChild(el("p", x.note, "hint manages")); }
    });
    // A group not listed (a Discord link opens one server only): how to open its page.
    if (d.groups_hint) { g.appendChild(el("p", d.groups_hint, "hint groups-hint")); }
  }

  function renderGroup(d, auth) {
    document.getElementById("title").textContent = d.group.heading;
    var back = el("a", t("dashboard.back"));
    back.href = location.pathname + location.hash;
    document.getElementById("who").appendChild(back);

    // The point first: how the group is doing, then what it gets wrong (the weakest
    // questions before the charts of every question), then its rounds.
    // A group nobody has played in yet: its first screen says what to do, not "0" over a
    // second box that says it.
    var where = d.group.platform === "discord" ? "_server" : "";
    var none = !d.members.count && !d.accuracy_charts.length;
    var m = section(t("dashboard.members"));
    m.id = "members";
    m.appendChild(none ? el("p", t("dashboard.no_answers" + where), "hint")
      : el("p", d.members.text));
    var ul = el("ul");
    d.members.quizzes.forEach(function (x) { ul.appendChild(el("li", x.line)); });
    m.appendChild(ul);
    if (d.members.needs_help) {  // admins: who may need help, on the first screen
      m.appendChild(el("p", d.members.needs_help, "needs-help"));
      var jump = el("a", t("dashboard.to_table"));
      jump.href = "#member-table";
      jump.addEventListener("click", function (e) {  // the URL's #tgWebAppData stays as it is
        e.preventDefault();
        document.getElementById("member-table").scrollIntoView();
      });
      m.appendChild(el("p")).appendChild(jump);
    }

    // A Discord server's page says "server" and /round start, as its commands do there.
    var q = none ? el("section") : section(t("dashboard.misconceptions"));
    q.id = "wrong";
    if (d.weakest.questions.length) { q.appendChild(el("p", d.weakest.text, "hint")); }
    d.weakest.questions.forEach(function (x) {
      var box = el("div", null, "miss");
      box.dataset.quiz = x.quiz;
      box.dataset.question = x.id;
      box.appendChild(el("p", x.line, "hint"));
      box.appendChild(el("p", x.text, "q"));
      box.appendChild(el("p", x.wrong.line, "bad"));
      q.appendChild(box);
    });
    if (d.weakest.more) { q.appendChild(el("p", d.weakest.more_text, "hint")); }
    if (d.weakest.next) { q.appendChild(el("p", d.weakest.next, "next-step")); }  // what to do
    d.accuracy_charts.forEach(function (c) { q.appendChild(el("p", c.title, "hint")); q.appendChild(chart(c.chart)); });

    var r = section(t("dashboard.rounds"));
    r.id = "rounds";
    if (!d.rounds.length) { r.appendChild(el("p", t("dashboard.no_rounds" + where), "hint")); }
    var list = el("ul");
    d.rounds.forEach(function (x) {
      // in the page's language, so in its direction: Urdu's reads from its day, right to left
      var li = el("li", own(when(x.started_at, x.started)) + " · " +
        (x.channel ? own(x.channel) + " · " : "") + x.line);
      li.title = x.started;  // the same moment in UTC
      list.appendChild(li);
    });
    r.appendChild(list);
    // An admin's table and downloads only once someone finished a quiz here: before that
    // they would be headings over nothing and files with nothing in them.
    if (d.items && d.items.quizzes.length) { renderItems(d, auth); }
    if (d.members.rows && d.members.total) { renderMemberTable(d, auth); }
  }

  var FIND_FROM = 10;  // member rows from which the table gets a search box
  var FIND_WAIT = 300;  // ms after the last key before the server is asked

  // An admin's member table: the server finds, orders and pages (a group of thousands ships
  // a page at a time); the page asks again when the search, the order or "Show more" changes.
  function renderMemberTable(d, auth) {
    var m = d.members, next = null, asked = 0;
    var base = "/api/groups/" + encodeURIComponent(d.group.id) + "/members";
    var a = section(t("dashboard.member_table"));
    a.id = "member-table";
    a.appendChild(el("p", m.order_text, "hint"));
    var controls = el("div", null, "table-controls");
    var find = null;
    if (m.total >= FIND_FROM) {  // a phone's web view has no find-in-page
      var form = el("form", null, "finder");
      form.setAttribute("role", "search");
      find = el("input", null, "find");
      find.type = "search";
      find.name = "find";
      find.placeholder = t("dashboard.find_member");
      find.setAttribute("aria-label", t("dashboard.find_member"));
      form.appendChild(find);
      var timer = null;
      form.addEventListener("submit", function (e) { e.preventDefault(); clearTimeout(timer); ask(0); });
      find.addEventListener("input", function () {
        clearTimeout(timer);
        timer = setTimeout(function () { ask(0); }, FIND_WAIT);
      });
      controls.appendChild(form);
    }
    var label = el("label", t("dashboard.order"), "order");
    var order = el("select");
    ["weakest", "idle", "recent"].forEach(function (o) {
      var option = el("option", t("dashboard.order_" + o));
      option.value = o;
      order.appendChild(option);
    });
    order.value = m.order;
    order.addEventListener("change", function () { ask(0); });
    label.appendChild(order);
    controls.appendChild(label);
    a.appendChild(controls);

    var table = el("table");
    var head = el("tr");
    ["dashboard.col_name", "dashboard.col_quiz", "dashboard.col_attempts", "dashboard.col_best",
     "dashboard.col_played"].forEach(function (k) { head.appendChild(el("th", t(k))); });
    var thead = el("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    var body = el("tbody");
    table.appendChild(body);
    a.appendChild(table);
    var showing = el("p", null, "hint showing");
    a.appendChild(showing);
    var none = el("div", null, "none");
    none.appendChild(el("p", t("dashboard.find_none"), "hint"));
    var everyone = el("button", t("dashboard.find_clear"));
    everyone.type = "button";
    everyone.addEventListener("click", function () { if (find) { find.value = ""; } ask(0); });
    none.appendChild(everyone);
    a.appendChild(none);
    var more = el("button", null, "more");
    more.type = "button";
    more.addEventListener("click", function () { if (next !== null) { ask(next); } });
    a.appendChild(more);
    if (m.more) { a.appendChild(el("p", m.more_text, "hint")); }  // past what is read

    function show(page, append) {
      if (!append) { body.textContent = ""; }
      page.rows.forEach(function (x) {
        var tr = el("tr");
        tr.appendChild(el("td", x.name, "name"));
        tr.appendChild(el("td", x.quiz_title));
        tr.appendChild(el("td", String(x.attempts), "count"));
        tr.appendChild(el("td", x.score, "count"));
        var played = el("td", x.played, "played");
        played.title = when(x.played_at, x.played_time);
        tr.appendChild(played);
        body.appendChild(tr);
      });
      showing.textContent = page.shown_text;
      showing.hidden = !page.total;
      none.hidden = page.total > 0;
      next = page.next;
      more.textContent = page.more_button;
      more.hidden = next === null;
      a.dataset.find = page.find;  // what the rows shown answer (tests wait on it)
      a.dataset.order = page.order;
      a.dataset.rows = String(body.children.length);
    }

    function ask(offset) {
      var mine = ++asked;
      var params = new URLSearchParams({ find: find ? find.value.trim() : "",
                                         order: order.value, offset: String(offset) });
      a.setAttribute("aria-busy", "true");
      api(base + "?" + params.toString(), auth).then(function (page) {
        if (mine !== asked) { return; }  // a newer question is on its way
        a.removeAttribute("aria-busy");
        show(page, offset > 0);
      }).catch(failed);
    }

    show(m, false);
    if (d.export) {
      a.appendChild(el("p", t("dashboard.export")));
      ["csv", "json"].forEach(function (f) {
        var b = el("button", t("dashboard.export_" + f));
        b.type = "button";
        b.addEventListener("click", function () {
          download(d.export[f], auth, fileName(d, "dashboard.file_results", f));
        });
        a.appendChild(b);
      });
    }
  }

  function renderItems(d, auth) {
    var it = section(t("dashboard.items"));
    it.id = "items";
    it.appendChild(el("p", d.items.method, "hint"));
    d.items.quizzes.forEach(function (z) {
      var box = el("details", null, "quiz-items");
      box.open = true;
      box.dataset.quiz = z.quiz;
      box.appendChild(el("summary", z.title));
      box.appendChild(el("p", z.text, "hint"));
      z.questions.forEach(function (x) {
        var q = el("details", null, x.flag ? "item flagged" : "item");
        var head = el("summary", x.label + " · " + x.line);
        if (x.flag) { head.appendChild(el("span", " ⚠", "bad")); }
        q.appendChild(head);
        q.appendChild(el("p", x.text, "q"));
        if (x.flag) { q.appendChild(el("p", x.flag, "bad")); }
        var table = el("table");
        var tr = el("tr");
        ["dashboard.col_option", "dashboard.col_top", "dashboard.col_bottom"].forEach(function (k) { tr.appendChild(el("th", t(k))); });
        table.appendChild(tr);
        x.options.forEach(function (o) {
          var row = el("tr", null, o.key ? "key" : "");
          row.appendChild(el("td", o.letter + ") " + o.text + (o.key ? " ✓" : "")));
          row.appendChild(el("td", o.upper + " %"));
          row.appendChild(el("td", o.lower + " %"));
          table.appendChild(row);
        });
        q.appendChild(table);
        box.appendChild(q);
      });
      it.appendChild(box);
    });
    var b = el("button", t("dashboard.items_csv"));
    b.type = "button";
    b.addEventListener("click", function () {
      download(d.items.csv, auth, fileName(d, "dashboard.file_items", "csv"));
    });
    it.appendChild(b);
  }

  // "Pipeline Club - results.csv", "Pipeline Club - question statistics.csv": the group's
  // name and what the file holds, in the reader's language (both were "quizbot-results.csv",
  // the second saved as "quizbot-results (1).csv"); no character a file system refuses.
  function fileName(d, what, fmt) {
    var group = (d.group.title || t("dashboard.group_untitled"))
      .replace(/[\u0000-\u001f\u007f\u2066-\u2069\\/:*?"<>|\s]+/g, " ").trim().slice(0, 60);
    return group + " - " + t(what) + "." + fmt;
  }

  function download(path, auth, name) {
    fetch(path, { headers: { Authorization: auth } }).then(function (r) {
      return r.ok ? r.blob() : refused(r);
    }).then(function (blob) {
      var a = el("a");
      a.href = URL.createObjectURL(blob);
      a.download = name;
      document.body.appendChild(a);
      a.click();
      setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
    }).catch(failed);
  }

  function start() {
    browserLanguage();
    theme();
    if (tg && tg.ready) { tg.ready(); }
    document.getElementById("status").textContent = t("dashboard.loading");
    var group = query.get("group");
    credential().then(function (auth) {
      document.getElementById("status").textContent = t("dashboard.loading");
      var path = group ? "/api/groups/" + encodeURIComponent(group) : "/api/me";
      return api(path, auth).then(function (d) {
        setLanguage(d.lang);
        document.getElementById("status").textContent = "";
        if (d.kind === "group") { renderGroup(d, auth); } else { renderMe(d, auth); }
        document.body.dataset.state = "ready";
      });
    }).catch(failed);
  }

  start();
})();
