import {launch,ctx,shot,watch,text,R1} from './lib.mjs';
const b=await launch();
for (const w of [1280,390]){
 const c=await ctx(b,w); const p=await c.newPage(); watch(p,w);
 await p.goto(R1); console.log('URL',p.url()); await shot(p,`reader-start-${w}`);
 if(w===1280){ console.log(await text(p)); await c.storageState({path:'/tmp/newcomer/r1state.json'}); }
 await c.close();
}
await b.close();
