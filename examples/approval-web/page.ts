// The one page: a request box, a card per call waiting for approval, and the
// answer. The run id is kept in the address (#run=...), so a reload, or the
// same address opened later, shows the run as the store has it.
export const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Payments desk: approval before paying</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; color: #1d232b; }
  form, .card, #answer, #error { margin: 1rem 0; }
  input[type=text] { width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; }
  button { font: inherit; padding: .4rem 1rem; margin-right: .5rem; cursor: pointer; }
  button:disabled { cursor: default; opacity: .5; }
  .card { border: 1px solid #c9d1da; border-left: 4px solid #d08a00; border-radius: 4px; padding: .75rem 1rem; }
  .card pre { background: #f3f5f7; padding: .5rem; overflow-x: auto; }
  #answer { border-left: 4px solid #2f8f4e; padding: .5rem 1rem; background: #f1f8f3; }
  #error { border-left: 4px solid #b3261e; padding: .5rem 1rem; background: #fbeeed; }
  [hidden] { display: none !important; }
</style>
</head>
<body>
<h1>Payments desk</h1>
<p>Ask for a payment in plain words. The assistant prepares it; nothing is sent until you approve it.</p>
<form id="ask-form">
  <label for="message">Your request</label>
  <input type="text" id="message" name="message" value="Send 40 EUR to Alice for the March invoice" required maxlength="2000">
  <p><button type="submit" id="ask">Ask</button></p>
</form>
<p id="status" aria-live="polite"></p>
<div id="pending"></div>
<div id="answer" hidden></div>
<div id="error" role="alert" hidden></div>
<script>
const $ = (id) => document.getElementById(id);

async function call(method, path, body) {
  const response = await fetch(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json();
  if (!response.ok) throw Object.assign(new Error(data.error.message), { code: data.error.code });
  return data;
}

function showError(error) {
  $('error').hidden = false;
  $('error').dataset.code = error.code || '';
  $('error').textContent = (error.code ? error.code + ': ' : '') + error.message;
}

function card(runId, item) {
  const box = document.createElement('section');
  box.className = 'card';
  box.dataset.item = item.id;
  const title = document.createElement('h2');
  title.className = 'tool';
  title.textContent = item.tool;
  const reason = document.createElement('p');
  reason.className = 'reason';
  reason.textContent = 'Waiting for you: ' + item.reason;
  const args = document.createElement('pre');
  args.className = 'args';
  args.textContent = JSON.stringify(item.args, null, 2);
  box.append(title, reason, args);
  if (item.kind !== 'approval') {
    const note = document.createElement('p');
    note.textContent = 'This page answers approvals only; this item asks for "' + item.kind + '".';
    box.append(note);
    return box;
  }
  const why = document.createElement('input');
  why.type = 'text';
  why.className = 'deny-reason';
  why.placeholder = 'Why not? (optional, sent with Deny)';
  const approve = document.createElement('button');
  approve.className = 'approve';
  approve.textContent = 'Approve';
  const deny = document.createElement('button');
  deny.className = 'deny';
  deny.textContent = 'Deny';
  const decide = async (approved) => {
    // Disabled at the first click: a double click sends one decision.
    approve.disabled = deny.disabled = why.disabled = true;
    $('status').textContent = approved ? 'Approved: sending the payment...' : 'Denied: telling the assistant...';
    try {
      // The item's signature and binding fields go back with the answer: the server takes it for this call only.
      render(await call('POST', '/api/runs/' + encodeURIComponent(runId) + '/answers', {
        itemId: item.id, approved, reason: approved ? undefined : why.value,
        signature: item.signature, tool: item.tool, callId: item.callId, argsDigest: item.argsDigest,
      }));
    } catch (error) {
      $('status').textContent = '';
      showError(error);
    }
  };
  approve.addEventListener('click', () => decide(true));
  deny.addEventListener('click', () => decide(false));
  const buttons = document.createElement('p');
  buttons.append(approve, deny);
  box.append(why, buttons);
  return box;
}

function render(view) {
  history.replaceState(null, '', '#run=' + encodeURIComponent(view.runId));
  document.body.dataset.run = view.runId;
  document.body.dataset.status = view.status;
  $('pending').replaceChildren();
  $('error').hidden = true;
  if (view.status === 'paused') {
    $('status').textContent = view.text || 'Waiting for your approval.';
    $('answer').hidden = true;
    for (const item of view.pending) $('pending').append(card(view.runId, item));
  } else {
    $('status').textContent = 'Finished (' + view.stopReason + ').';
    $('answer').hidden = false;
    $('answer').textContent = view.answer;
  }
}

$('ask-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  $('ask').disabled = true;
  $('answer').hidden = true;
  $('error').hidden = true;
  $('pending').replaceChildren();
  $('status').textContent = 'Thinking...';
  try {
    render(await call('POST', '/api/ask', { message: $('message').value }));
  } catch (error) {
    $('status').textContent = '';
    showError(error);
  } finally {
    $('ask').disabled = false;
  }
});

const shown = /^#run=(.+)$/.exec(location.hash);
if (shown) call('GET', '/api/runs/' + shown[1]).then(render, showError);
</script>
</body>
</html>
`;
