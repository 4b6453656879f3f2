// The page's script: everything is already on the page as HTML; this only adds selection. Clicking a step
// (or pressing j/k) highlights its nodes on the graph and shows the step with its whole state, rebuilt
// from the state changes the page's data holds. Values from the run are only ever set as textContent or
// as HTML the generator escaped (a step's `html`), never as markup of their own.
(function () {
  "use strict";
  document.body.classList.add("js");
  var holder = document.getElementById("page-data");
  if (!holder) return;

  function decoded() {
    if (holder.dataset.encoding !== "gzip-base64") return Promise.resolve(JSON.parse(holder.textContent));
    if (typeof DecompressionStream === "undefined") return Promise.reject(new Error("this browser cannot inflate the page's data"));
    var binary = atob(holder.textContent.trim());
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }

  function clone(value) { return value === undefined || value === null ? null : JSON.parse(JSON.stringify(value)); }

  function apply(state, change) {
    var path = change[0], op = change[1], value = clone(change[3]);
    if (path.length === 0) return op === "removed" ? null : value;
    var parent = state;
    for (var i = 0; i < path.length - 1; i++) {
      if (parent === null || typeof parent !== "object") return state;
      parent = parent[path[i]];
    }
    if (parent === null || typeof parent !== "object") return state;
    var last = path[path.length - 1];
    if (op === "removed") {
      if (Array.isArray(parent)) parent.length = Math.min(parent.length, last); else delete parent[last];
    } else parent[last] = value;
    return state;
  }

  function Side(run, prefix) {
    this.run = run; this.prefix = prefix; this.state = clone(run.base); this.at = -1;
    this.byPosition = {};
    for (var i = 0; i < run.steps.length; i++) this.byPosition[run.steps[i].i] = i;
  }
  Side.prototype.stateAt = function (k) {
    if (k < this.at) { this.state = clone(this.run.base); this.at = -1; }
    for (var j = this.at + 1; j <= k; j++) {
      var changes = this.run.steps[j].c;
      for (var c = 0; c < changes.length; c++) this.state = apply(this.state, changes[c]);
    }
    this.at = k;
    return this.state;
  };

  // A long history shows its first item and its newest ones, as the page's other excerpts do: a
  // 20,000-message state written out whole would take the browser seconds to lay out.
  var HEAD = 1, TAIL = 20;
  function shortened(value) {
    if (Array.isArray(value)) {
      if (value.length <= HEAD + TAIL + 1) return value.map(shortened);
      var out = value.slice(0, HEAD).map(shortened);
      out.push("… " + (value.length - HEAD - TAIL) + " items left out …");
      return out.concat(value.slice(value.length - TAIL).map(shortened));
    }
    if (value !== null && typeof value === "object") {
      var copy = {};
      for (var key in value) if (Object.prototype.hasOwnProperty.call(value, key)) copy[key] = shortened(value[key]);
      return copy;
    }
    return value;
  }
  function stateText(state) { return JSON.stringify(shortened(state), null, 1); }

  function highlight(nodes, ids) {
    var wanted = {};
    for (var i = 0; i < nodes.length; i++) if (ids[nodes[i]]) wanted[ids[nodes[i]]] = true;
    var drawn = document.querySelectorAll("#graph g.node");
    for (var n = 0; n < drawn.length; n++) {
      var title = drawn[n].querySelector("title");
      drawn[n].classList.toggle("current", !!(title && wanted[title.textContent]));
    }
  }

  // A long run's later rows and messages are added a thousand at a time, when asked for: twenty
  // thousand table rows at once kept the browser busy for seconds.
  var CHUNK = 1000;
  function more(after, left, add, what) {
    var button = document.createElement("button");
    button.type = "button";
    button.className = "more";
    function label() { button.textContent = "show " + Math.min(CHUNK, left()) + " more " + what + " (" + left() + " not shown)"; }
    button.addEventListener("click", function () { add(); if (left()) label(); else button.remove(); });
    label();
    after.insertAdjacentElement("afterend", button);
    return button;
  }
  function showRows(side, count) {
    side.table.tBodies[0].insertAdjacentHTML("beforeend", side.more.splice(0, count).join(""));
    if (side.button && !side.more.length) side.button.remove();
    else if (side.button) side.button.textContent = "show " + Math.min(CHUNK, side.more.length) + " more steps (" + side.more.length + " not shown)";
  }

  function start(data) {
    var sides = (data.runs || []).map(function (run, i) { return new Side(run, data.runs.length > 1 ? "ab"[i] + "-" : ""); });
    var panel = document.getElementById("step-panel"), body = document.getElementById("panel-body");
    var current = null;

    function select(side, position) {
      var k = side.byPosition[position];
      if (k === undefined) return;
      var step = side.run.steps[k];
      var rows = document.querySelectorAll(".timeline tr.selected");
      for (var r = 0; r < rows.length; r++) rows[r].classList.remove("selected");
      var row = document.getElementById(side.prefix + "step-" + position);
      while (!row && side.more && side.more.length) {
        showRows(side, CHUNK);
        row = document.getElementById(side.prefix + "step-" + position);
      }
      if (row) { row.classList.add("selected"); row.scrollIntoView({ block: "nearest", inline: "nearest" }); }
      highlight(step.n, data.node_ids);
      if (panel && body) {
        panel.hidden = false;
        var written = document.getElementById(side.prefix + "detail-" + position);
        if (step.html !== undefined) body.innerHTML = step.html;  // written by the generator, every run value escaped
        else if (written) { body.textContent = ""; var copy = written.cloneNode(true); copy.removeAttribute("id"); body.appendChild(copy); }
        var state = side.stateAt(k);
        var title = document.createElement("h4");
        title.textContent = "state after the step";
        var pre = document.createElement("pre");
        pre.className = "state";
        pre.textContent = state === null || state === undefined ? "(no state)" : stateText(state);
        body.appendChild(title); body.appendChild(pre);
        panel.dataset.step = String(position);
      }
      current = { side: side, k: k };
    }

    sides.forEach(function (side) {
      var table = document.getElementById(side.prefix + "timeline");
      if (!table) return;
      side.table = table;
      side.more = side.run.rows || [];  // rows past the page's own, escaped by the generator
      if (side.more.length) {
        side.button = more(table, function () { return side.more.length; }, function () { showRows(side, CHUNK); }, "steps");
      }
      table.addEventListener("click", function (event) {
        var row = event.target.closest("tr[data-step]");
        if (!row) return;
        event.preventDefault();
        select(side, Number(row.dataset.step));
      });
    });
    var conversation = document.getElementById("conversation");
    var unsaid = data.said || [];  // messages past the page's own, escaped by the generator
    if (conversation && unsaid.length) {
      more(conversation, function () { return unsaid.length; }, function () {
        conversation.insertAdjacentHTML("beforeend", unsaid.splice(0, CHUNK).join(""));
      }, "messages");
    }
    var said = document.querySelectorAll(".conversation li[data-step]");
    for (var s = 0; s < said.length; s++) said[s].addEventListener("click", function () { select(sides[0], Number(this.dataset.step)); });
    document.addEventListener("keydown", function (event) {
      if (!current || event.target.tagName === "INPUT") return;
      var step = { j: 1, ArrowDown: 1, k: -1, ArrowUp: -1 }[event.key];
      if (!step) return;
      var k = current.k + step;
      if (k < 0 || k >= current.side.run.steps.length) return;
      event.preventDefault();
      select(current.side, current.side.run.steps[k].i);
    });
    document.body.dataset.ready = "true";
  }

  decoded().then(start, function (error) {
    var note = document.createElement("p");
    note.className = "note";
    note.textContent = "The page's data could not be read (" + error.message + "): the timeline above still holds every step.";
    document.body.insertBefore(note, document.body.firstChild);
  });
})();
