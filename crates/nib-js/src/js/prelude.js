// What every run starts with: no clock, no machine's time zone and a seeded Math.random, so a
// run gives the same result on every machine and every time, as Pen's does.
(() => {
  // A mulberry32 of seed 1.
  let seed = 1;
  Math.random = function () {
    seed = (seed + 0x6D2B79F5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };

  // The clock is stopped at 0: performance.now() would tell how long the run took.
  globalThis.performance = Object.freeze({ now: () => 0, timeOrigin: 0 });

  // Local time is the machine's time zone (the TZ setting), so `new Date(2020, 0, 1)`,
  // getHours() and String(date) would differ between machines: a run's local time is UTC.
  const RealDate = Date;
  const proto = RealDate.prototype;
  // The machine's offset, kept for reading dates the engine parsed as local time.
  const realOffset = proto.getTimezoneOffset;
  const utc = ["FullYear", "Month", "Date", "Day", "Hours", "Minutes", "Seconds", "Milliseconds"];
  for (const part of utc) {
    proto["get" + part] = proto["getUTC" + part];
    if (part !== "Day") proto["set" + part] = proto["setUTC" + part];
  }
  proto.getYear = function () { return this.getUTCFullYear() - 1900; };
  proto.getTimezoneOffset = function () { return Number.isNaN(this.getTime()) ? NaN : 0; };
  const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
  const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  const pad = (n, width) => String(n).padStart(width, "0");
  const year = (d) => (d.getUTCFullYear() < 0 ? "-" + pad(-d.getUTCFullYear(), 6) : pad(d.getUTCFullYear(), 4));
  const day = (d) => `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${pad(d.getUTCDate(), 2)} ${year(d)}`;
  const clock = (d) => `${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`;
  const localDay = (d) => `${pad(d.getUTCMonth() + 1, 2)}/${pad(d.getUTCDate(), 2)}/${year(d)}`;
  const localClock = (d) => {
    const h = d.getUTCHours();
    return `${pad(h % 12 || 12, 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)} ${h < 12 ? "AM" : "PM"}`;
  };
  const text = (show) => function () { return Number.isNaN(this.getTime()) ? "Invalid Date" : show(this); };
  proto.toString = text((d) => `${day(d)} ${clock(d)} GMT+0000`);
  proto.toDateString = text(day);
  proto.toTimeString = text((d) => `${clock(d)} GMT+0000`);
  proto.toLocaleString = text((d) => `${localDay(d)}, ${localClock(d)}`);
  proto.toLocaleDateString = text(localDay);
  proto.toLocaleTimeString = text(localClock);
  // A date-time without a zone is read as local time: as UTC here. A zone written in the text
  // (Z, +02:00, GMT…) is kept, and a date alone is UTC already.
  const zoned = /(?:\d[zZ]|[+-]\d\d:?\d\d|\b(?:GMT|UTC|UT|[ECMP][SD]T)\b)/;
  const dateOnly = /^\s*[+-]?\d{4,6}(?:-\d\d){0,2}\s*$/;
  const parse = (s) => {
    s = String(s);
    const t = RealDate.parse(s);
    if (Number.isNaN(t) || zoned.test(s) || dateOnly.test(s)) return t;
    return t - realOffset.call(new RealDate(t)) * 60000;
  };
  function StoppedDate(...args) {
    if (!new.target) return new RealDate(0).toString();
    if (args.length === 0) return new RealDate(0);
    if (args.length === 1) return typeof args[0] === "string" ? new RealDate(parse(args[0])) : new RealDate(args[0]);
    return new RealDate(RealDate.UTC(...args));
  }
  StoppedDate.prototype = proto;
  proto.constructor = StoppedDate;
  StoppedDate.now = () => 0;
  StoppedDate.UTC = RealDate.UTC;
  StoppedDate.parse = parse;
  globalThis.Date = StoppedDate;
})();
