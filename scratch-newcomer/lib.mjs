import { chromium } from 'playwright-core';
export const BASE='http://127.0.0.1:8391';
export const R1='http://127.0.0.1:8391/r/cxr_read_iuv7z6_-z4T16zyq7sBqTULTBT9AtIk_gk3qL2yFxvY';
export const R2='http://127.0.0.1:8391/r/cxr_read_rTTpzhziZAoqoELJM8lpuVazD4we3UqL6g0P261quKY';
export const ADMIN={email:'host@demo.local',password:'cNc3gdCDpLZPF4h2'};
export async function launch(){ return chromium.launch({executablePath:'/usr/bin/chromium',headless:true,args:['--no-sandbox','--disable-gpu','--disable-quic','--no-first-run','--disable-background-networking','--disable-component-update','--disable-sync']}); }
export async function ctx(browser,width=1280,storageState){ const c=await browser.newContext({viewport:{width,height:width>500?800:844},storageState}); return c; }
export async function shot(page,name,full=true){ await page.screenshot({path:`/tmp/newcomer/shots/${name}.png`,fullPage:full}); }
export function watch(page,tag=''){ page.on('console',m=>{ if(['error','warning'].includes(m.type())) console.log(tag,'CONSOLE',m.type(),m.text())}); page.on('pageerror',e=>console.log(tag,'PAGEERROR',e.message)); page.on('response',r=>{ if(r.status()>=400) console.log(tag,'HTTP',r.status(),r.url())}); }
export async function text(page){ return (await page.locator('body').innerText()); }
