import {launch,ctx,shot,watch,text} from './lib.mjs';
const b=await launch();
const c=await ctx(b,1280,'/tmp/newcomer/r1state.json'); const p=await c.newPage(); watch(p);
const S='http://127.0.0.1:8391/read/a849516c-07a3-4873-a7d1-3c842d39d59e';
await p.goto(S+'/case/1'); await p.waitForTimeout(1200);
const st=async(l)=>console.log(l,'|',p.url().replace(S,''),'|',(await p.locator('[role=status]').allInnerTexts()).join(' / '),'|',await p.evaluate(()=>[...document.querySelectorAll('input:checked')].map(i=>i.name+'='+i.value).join(',')),'| focus',await p.evaluate(()=>{const a=document.activeElement;return a.tagName+(a.name?':'+a.name+'='+a.value:'')}));
await st('loaded case1');
await p.keyboard.press('d'); await p.waitForTimeout(600); await st('pressed d');
await p.keyboard.press('ArrowRight'); await p.waitForTimeout(1500); await st('pressed →');
await shot(p,'reader-after-arrow-1280',false);
// now on case 2 presumably; press N without answer
await p.keyboard.press('n'); await p.waitForTimeout(1000); await st('N without answer');
await shot(p,'reader-N-noanswer-1280',false);
await p.keyboard.press('b'); await p.waitForTimeout(600); await p.keyboard.press('2'); await p.waitForTimeout(600); await st('b,2');
await p.keyboard.press('n'); await p.waitForTimeout(1500); await st('N');
await p.keyboard.press('c'); await p.waitForTimeout(600); await st('c (no conf)');
await p.keyboard.press('p'); await p.waitForTimeout(1500); await st('P back');
await p.keyboard.press('ArrowLeft'); await p.waitForTimeout(1500); await st('← back');
await p.keyboard.press('5'); await p.waitForTimeout(600); await st('5 on case1');
await p.keyboard.press('n'); await p.waitForTimeout(1200); await st('n');
await p.keyboard.press('n'); await p.waitForTimeout(1200); await st('n');
await p.keyboard.press('a'); await p.waitForTimeout(600); await p.keyboard.press('1'); await p.waitForTimeout(600); await st('a1 on case 3?');
await p.keyboard.press('A'); await p.waitForTimeout(600); await st('Shift-A same answer');
await p.keyboard.press('Shift+D'); await p.waitForTimeout(600); await st('Shift+D');
await p.keyboard.press('n'); await p.waitForTimeout(1200);
await p.keyboard.press('a'); await p.waitForTimeout(300); await p.keyboard.press('n'); await p.waitForTimeout(1200); await st('fast a,n');
await c.storageState({path:'/tmp/newcomer/r1state.json'});
await p.close(); // close tab mid-way
await c.close(); await b.close();
