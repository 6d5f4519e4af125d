// Progressive enhancement: sort a leaderboard column in place (the links sort on the server without JavaScript).
document.querySelectorAll('table.board thead a[data-sort]').forEach((link) => {
  link.addEventListener('click', (event) => {
    const th = link.closest('th');
    const table = link.closest('table');
    if (!th || !table || link.dataset.sort === 'overall') return;
    event.preventDefault();
    const index = [...th.parentElement.children].indexOf(th);
    const rows = [...table.tBodies[0].rows];
    const key = (row) => {
      const text = row.cells[index].textContent.trim();
      const number = parseFloat(text);
      return Number.isNaN(number) ? text.toLowerCase() : -number;
    };
    rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    rows.forEach((row) => table.tBodies[0].appendChild(row));
    table.querySelectorAll('a.sorted').forEach((a) => a.classList.remove('sorted'));
    link.classList.add('sorted');
  });
});
